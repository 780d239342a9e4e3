import { readFileSync } from "node:fs";
import { App, type CfnElement } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnApi } from "aws-cdk-lib/aws-apigatewayv2";
import { CfnTable } from "aws-cdk-lib/aws-dynamodb";
import { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { CfnLogGroup } from "aws-cdk-lib/aws-logs";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { type RouteDefinition, routes } from "../../functions/routes.js";
import { GLOBAL_INDEXES, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from "../../functions/store/table-definition.js";
import { AgentTrackingStack } from "../../lib/service-stack.js";

/** Synthesis bundles every handler with esbuild once; allow for a slow machine. */
const SYNTH_TIMEOUT_MS = 180_000;

interface FunctionResource {
  readonly Properties: { readonly Role: unknown };
}
interface PolicyStatementJson {
  readonly Effect: string;
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
}
interface PolicyResource {
  readonly Properties: {
    readonly Roles: readonly unknown[];
    readonly PolicyDocument: { readonly Statement: readonly PolicyStatementJson[] };
  };
}
interface TableResource {
  readonly Properties: {
    readonly AttributeDefinitions: readonly { readonly AttributeName: string; readonly AttributeType: string }[];
    readonly GlobalSecondaryIndexes: readonly { readonly IndexName: string }[];
  };
}
interface RouteResource {
  readonly Properties: { readonly RouteKey: string };
}

let stack: AgentTrackingStack;
let template: Template;

/** Resources of one type, typed by the caller after `findResources`' untyped JSON. */
function resourcesOf<T>(type: string): Record<string, T> {
  return template.findResources(type) as Record<string, T>;
}

function asArray<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? value : [value as T];
}

/** Logical id of the CloudFormation resource behind an L2 construct. */
function logicalIdOf<T extends CfnElement>(
  construct: IConstruct,
  cfnType: abstract new (...args: never[]) => T,
): string {
  const child = construct.node.defaultChild;
  if (!(child instanceof cfnType)) {
    throw new Error(`${construct.node.path} has no ${cfnType.name} default child`);
  }
  return stack.getLogicalId(child);
}

function handlerOf(route: RouteDefinition) {
  const handler = stack.handlers.get(route.id);
  if (handler === undefined) {
    throw new Error(`no function for route ${route.id}`);
  }
  return handler;
}

function tableLogicalId(): string {
  return logicalIdOf(stack.table.table, CfnTable);
}

function tableArn() {
  return { "Fn::GetAtt": [tableLogicalId(), "Arn"] };
}

function indexArn() {
  return { "Fn::Join": ["", [tableArn(), "/index/*"]] };
}

/** Every statement of the inline policies attached to the function's role. */
function policyStatementsOf(functionLogicalId: string): readonly PolicyStatementJson[] {
  const fn = resourcesOf<FunctionResource>("AWS::Lambda::Function")[functionLogicalId];
  if (fn === undefined) {
    throw new Error(`function ${functionLogicalId} not in template`);
  }
  const role = fn.Properties.Role;
  expect(role).toEqual({ "Fn::GetAtt": [expect.any(String), "Arn"] });
  const roleLogicalId = (role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return Object.values(resourcesOf<PolicyResource>("AWS::IAM::Policy"))
    .filter((policy) =>
      policy.Properties.Roles.some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleLogicalId })),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

beforeAll(() => {
  // Prepare: the same feature flags `cdk synth` uses (cdk.json context).
  const cdkJson: unknown = JSON.parse(readFileSync(new URL("../../cdk.json", import.meta.url), "utf8"));
  const context =
    typeof cdkJson === "object" && cdkJson !== null && "context" in cdkJson
      ? (cdkJson.context as Record<string, unknown>)
      : {};
  const app = new App({ context });

  // Act: one synthesis (and one esbuild run per handler) for the whole file.
  stack = new AgentTrackingStack(app, "AgentTrackingTest");
  template = Template.fromStack(stack);
}, SYNTH_TIMEOUT_MS);

describe("HTTP API", () => {
  it("has exactly one route per route-table entry", () => {
    // Prepare
    const expected = routes.map((route) => `${route.method} ${route.path}`).sort();

    // Act
    const actual = Object.values(resourcesOf<RouteResource>("AWS::ApiGatewayV2::Route"))
      .map((route) => route.Properties.RouteKey)
      .sort();

    // Assess
    expect(actual).toEqual(expected);
  });

  for (const route of routes) {
    it(`routes ${route.method} ${route.path} to the ${route.id} function with payload format 2.0`, () => {
      // Prepare
      const apiId = logicalIdOf(stack.api, CfnApi);
      const functionId = logicalIdOf(handlerOf(route).function, CfnFunction);

      // Act
      const integrations = template.findResources("AWS::ApiGatewayV2::Integration", {
        Properties: {
          ApiId: { Ref: apiId },
          IntegrationType: "AWS_PROXY",
          IntegrationUri: { "Fn::GetAtt": [functionId, "Arn"] },
          PayloadFormatVersion: "2.0",
        },
      });
      const integrationIds = Object.keys(integrations);

      // Assess
      expect(integrationIds).toHaveLength(1);
      template.hasResourceProperties("AWS::ApiGatewayV2::Route", {
        ApiId: { Ref: apiId },
        RouteKey: `${route.method} ${route.path}`,
        Target: { "Fn::Join": ["", ["integrations/", { Ref: integrationIds[0] }]] },
      });
    });
  }

  it("deploys a throttled $default stage automatically", () => {
    // Prepare
    const apiId = logicalIdOf(stack.api, CfnApi);

    // Assess
    template.resourceCountIs("AWS::ApiGatewayV2::Stage", 1);
    template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      ApiId: { Ref: apiId },
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
  });

  it("outputs the API URL and the table name", () => {
    // Prepare
    const apiId = logicalIdOf(stack.api, CfnApi);

    // Assess
    template.hasOutput("ApiUrl", {
      Value: { "Fn::Join": ["", Match.arrayWith(["https://", { Ref: apiId }])] },
    });
    template.hasOutput("TableName", { Value: { Ref: tableLogicalId() } });
  });
});

describe("Lambda functions", () => {
  it("creates exactly one function per route", () => {
    template.resourceCountIs("AWS::Lambda::Function", routes.length);
    expect(new Set(routes.map((route) => logicalIdOf(handlerOf(route).function, CfnFunction))).size).toBe(
      routes.length,
    );
  });

  it("applies the service defaults to every function", () => {
    template.allResourcesProperties("AWS::Lambda::Function", {
      Runtime: "nodejs24.x",
      Architectures: ["arm64"],
      MemorySize: 256,
      Timeout: 10,
      Handler: "index.handler",
      FunctionName: Match.absent(),
      Environment: { Variables: { TABLE_NAME: { Ref: tableLogicalId() } } },
    });
  });

  for (const route of routes) {
    it(`logs ${route.id} to its own log group`, () => {
      // Prepare
      const handler = handlerOf(route);
      const functionId = logicalIdOf(handler.function, CfnFunction);
      const logGroupId = logicalIdOf(handler.logGroup, CfnLogGroup);

      // Act
      const matches = template.findResources("AWS::Lambda::Function", {
        Properties: { LoggingConfig: { LogGroup: { Ref: logGroupId } } },
      });

      // Assess
      expect(Object.keys(matches)).toEqual([functionId]);
    });

    it(`grants ${route.id} exactly its table actions`, () => {
      // Prepare
      const functionId = logicalIdOf(handlerOf(route).function, CfnFunction);
      const expectedActions = [...new Set(route.tableActions)].sort();
      const expectedResources = route.queriesIndexes ? [tableArn(), indexArn()] : [tableArn()];

      // Act
      const dynamoStatements = policyStatementsOf(functionId).filter((statement) =>
        asArray(statement.Action).some((action) => action.startsWith("dynamodb:")),
      );
      const grantedActions = [...new Set(dynamoStatements.flatMap((statement) => asArray(statement.Action)))].sort();

      // Assess
      expect(grantedActions).toEqual(expectedActions);
      expect(grantedActions).not.toContain("dynamodb:*");
      expect(grantedActions).not.toContain("dynamodb:Scan");
      expect(dynamoStatements.length).toBeGreaterThan(0);
      for (const statement of dynamoStatements) {
        expect(statement.Effect).toBe("Allow");
        expect(asArray(statement.Resource)).toEqual(expectedResources);
      }
    });
  }

  it("gives no function a managed policy or a wildcard resource", () => {
    // Act
    const statements = routes.flatMap((route) =>
      policyStatementsOf(logicalIdOf(handlerOf(route).function, CfnFunction)),
    );

    // Assess
    template.allResourcesProperties("AWS::IAM::Role", { ManagedPolicyArns: Match.absent() });
    expect(statements.flatMap((statement) => asArray(statement.Resource))).not.toContain("*");
  });

  for (const route of routes) {
    it(`lets ${route.id} write to its own log group only`, () => {
      // Prepare
      const handler = handlerOf(route);
      const functionId = logicalIdOf(handler.function, CfnFunction);
      const logGroupArn = { "Fn::GetAtt": [logicalIdOf(handler.logGroup, CfnLogGroup), "Arn"] };

      // Act
      const logStatements = policyStatementsOf(functionId).filter((statement) =>
        asArray(statement.Action).some((action) => action.startsWith("logs:")),
      );

      // Assess
      expect(logStatements.flatMap((statement) => asArray(statement.Action)).sort()).toEqual([
        "logs:CreateLogStream",
        "logs:PutLogEvents",
      ]);
      for (const statement of logStatements) {
        expect(asArray(statement.Resource)).toEqual([logGroupArn]);
      }
    });
  }

  it("keeps every log group for one month", () => {
    template.resourceCountIs("AWS::Logs::LogGroup", routes.length);
    template.allResourcesProperties("AWS::Logs::LogGroup", {
      RetentionInDays: 30,
      LogGroupName: Match.absent(),
    });
  });
});

describe("DynamoDB table", () => {
  it("is built from the table definition and protected against loss", () => {
    template.resourceCountIs("AWS::DynamoDB::Table", 1);
    template.hasResource("AWS::DynamoDB::Table", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: Match.objectLike({
        TableName: Match.absent(),
        KeySchema: [
          { AttributeName: PARTITION_KEY, KeyType: "HASH" },
          { AttributeName: SORT_KEY, KeyType: "RANGE" },
        ],
        BillingMode: "PAY_PER_REQUEST",
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
  });

  it("defines every key attribute as a string, and nothing else", () => {
    // Prepare
    const expected = [
      PARTITION_KEY,
      SORT_KEY,
      ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
    ]
      .map((name) => ({ AttributeName: name, AttributeType: "S" }))
      .sort((a, b) => a.AttributeName.localeCompare(b.AttributeName));

    // Act
    const [table] = Object.values(resourcesOf<TableResource>("AWS::DynamoDB::Table"));
    const actual = [...(table?.Properties.AttributeDefinitions ?? [])].sort((a, b) =>
      a.AttributeName.localeCompare(b.AttributeName),
    );

    // Assess
    expect(actual).toEqual(expected);
  });

  it("has exactly the global indexes of the table definition, projecting keys only (no index write on counter updates)", () => {
    // Prepare
    const expected = GLOBAL_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: "HASH" },
        { AttributeName: index.sortKey, KeyType: "RANGE" },
      ],
      Projection: { ProjectionType: "KEYS_ONLY" },
    })).sort((a, b) => a.IndexName.localeCompare(b.IndexName));

    // Act
    const [table] = Object.values(resourcesOf<TableResource>("AWS::DynamoDB::Table"));
    const actual = [...(table?.Properties.GlobalSecondaryIndexes ?? [])].sort((a, b) =>
      a.IndexName.localeCompare(b.IndexName),
    );

    // Assess
    expect(actual).toEqual(expected);
  });
});
