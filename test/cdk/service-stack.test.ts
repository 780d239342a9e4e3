import { readFileSync } from "node:fs";
import { App, type CfnElement } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnApi, CfnRoute } from "aws-cdk-lib/aws-apigatewayv2";
import { CfnUserPool, CfnUserPoolClient } from "aws-cdk-lib/aws-cognito";
import { CfnTable } from "aws-cdk-lib/aws-dynamodb";
import { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { CfnLogGroup } from "aws-cdk-lib/aws-logs";
import { CfnQueue } from "aws-cdk-lib/aws-sqs";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { deletionWorker, type RouteDefinition, routes } from "../../functions/routes.js";
import { GLOBAL_INDEXES, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from "../../functions/store/table-definition.js";
import { AgentTrackingStack } from "../../lib/service-stack.js";
import { acknowledgementsIn, awsSolutionsFindings } from "./nag-findings.js";

/** Synthesis bundles every handler with esbuild once; allow for a slow machine. */
const SYNTH_TIMEOUT_MS = 180_000;

interface FunctionResource {
  readonly Properties: { readonly Role: unknown; readonly Timeout: number };
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
interface FunctionEnvironmentResource {
  readonly Properties: { readonly Environment: { readonly Variables: Readonly<Record<string, unknown>> } };
}
interface QueueResource {
  readonly Properties: {
    readonly VisibilityTimeout?: number;
    readonly MessageRetentionPeriod?: number;
    readonly RedrivePolicy?: unknown;
    readonly SqsManagedSseEnabled?: boolean;
  };
}
interface StageResource {
  readonly Properties: {
    readonly AccessLogSettings?: { readonly DestinationArn: unknown; readonly Format: string };
  };
}

/** The variables with which the key-management handlers verify Cognito access tokens. */
const JWT_VARIABLES = ["JWT_ISSUER", "JWT_CLIENT_ID", "JWT_JWKS_URI"] as const;

/** The actions the SQS event source grants the worker: consume, nothing else. */
const QUEUE_CONSUME_ACTIONS = [
  "sqs:ChangeMessageVisibility",
  "sqs:DeleteMessage",
  "sqs:GetQueueAttributes",
  "sqs:GetQueueUrl",
  "sqs:ReceiveMessage",
] as const;

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

function handlerOf(route: Pick<RouteDefinition, "id">) {
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

/** One ARN per index of the table definition, by name (never `index/*`). */
function indexArns() {
  return GLOBAL_INDEXES.map((index) => ({ "Fn::Join": ["", [tableArn(), `/index/${index.indexName}`]] }));
}

function workerLogicalId(): string {
  return logicalIdOf(stack.deletionWorker.function, CfnFunction);
}

function queueArnOf(queue: IConstruct) {
  return { "Fn::GetAtt": [logicalIdOf(queue, CfnQueue), "Arn"] };
}

/** Every function of the stack: one per route, then the deletion worker. */
function allFunctionIds(): readonly string[] {
  return [...routes.map((route) => logicalIdOf(handlerOf(route).function, CfnFunction)), workerLogicalId()];
}

function statementsWithPrefix(functionLogicalId: string, prefix: string): readonly PolicyStatementJson[] {
  return policyStatementsOf(functionLogicalId).filter((statement) =>
    asArray(statement.Action).some((action) => action.startsWith(prefix)),
  );
}

function actionsOf(statements: readonly PolicyStatementJson[]): readonly string[] {
  return [...new Set(statements.flatMap((statement) => asArray(statement.Action)))].sort();
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

  it("outputs the user pool id and the app client id", () => {
    template.hasOutput("UserPoolId", { Value: { Ref: logicalIdOf(stack.users.userPool, CfnUserPool) } });
    template.hasOutput("UserPoolClientId", { Value: { Ref: logicalIdOf(stack.users.client, CfnUserPoolClient) } });
  });

  it("logs every request of the stage as JSON to its own log group", () => {
    // Prepare
    const logGroupArn = { "Fn::GetAtt": [logicalIdOf(stack.accessLogGroup, CfnLogGroup), "Arn"] };

    // Act
    const [stage] = Object.values(resourcesOf<StageResource>("AWS::ApiGatewayV2::Stage"));
    const settings = stage?.Properties.AccessLogSettings;
    const format: unknown = JSON.parse(settings?.Format ?? "null");

    // Assess
    expect(settings?.DestinationArn).toEqual(logGroupArn);
    expect(format).toEqual({
      requestId: "$context.requestId",
      ip: "$context.identity.sourceIp",
      requestTime: "$context.requestTime",
      routeKey: "$context.routeKey",
      status: "$context.status",
      protocol: "$context.protocol",
      responseLength: "$context.responseLength",
      integrationLatency: "$context.integrationLatency",
      responseLatency: "$context.responseLatency",
      integrationError: "$context.integrationErrorMessage",
    });
  });
});

describe("Lambda functions", () => {
  it("creates exactly one function per route, plus the deletion worker", () => {
    template.resourceCountIs("AWS::Lambda::Function", routes.length + 1);
    expect(new Set(allFunctionIds()).size).toBe(routes.length + 1);
  });

  it("applies the service defaults to every function", () => {
    template.allResourcesProperties("AWS::Lambda::Function", {
      Runtime: "nodejs24.x",
      Architectures: ["arm64"],
      MemorySize: 256,
      Handler: "index.handler",
      FunctionName: Match.absent(),
      Environment: { Variables: Match.objectLike({ TABLE_NAME: { Ref: tableLogicalId() } }) },
    });
  });

  it("gives every API function a 10-second timeout", () => {
    // Act
    const functions = resourcesOf<FunctionResource>("AWS::Lambda::Function");
    const timeouts = routes.map(
      (route) => functions[logicalIdOf(handlerOf(route).function, CfnFunction)]?.Properties.Timeout,
    );

    // Assess
    expect(timeouts).toEqual(routes.map(() => 10));
  });

  it("has routes of every kind, and one that enqueues deletions, so the environment checks below cover them all", () => {
    const withQueue = routes
      .filter((route: RouteDefinition) => route.sendsDeletionJobs === true)
      .map((route) => route.id);

    expect(new Set(routes.map((route) => route.auth.kind))).toEqual(new Set(["apiKey", "user", "public"]));
    expect(withQueue).toEqual(["DeleteUserData"]);
  });

  for (const route of routes) {
    const definition: RouteDefinition = route;
    const extras = [
      ...(definition.auth.kind === "user" ? ["the user pool"] : []),
      ...(definition.sendsDeletionJobs === true ? ["the deletion queue"] : []),
    ];
    it(`gives ${route.id} (${definition.auth.kind}) the table name${extras.map((extra) => ` and ${extra}`).join("")}, nothing else`, () => {
      // Prepare: the JWKS URI is left to its default, `<issuer>/.well-known/jwks.json`.
      const functionId = logicalIdOf(handlerOf(route).function, CfnFunction);
      const expected = {
        TABLE_NAME: { Ref: tableLogicalId() },
        ...(definition.auth.kind === "user"
          ? {
              JWT_ISSUER: { "Fn::GetAtt": [logicalIdOf(stack.users.userPool, CfnUserPool), "ProviderURL"] },
              JWT_CLIENT_ID: { Ref: logicalIdOf(stack.users.client, CfnUserPoolClient) },
            }
          : {}),
        ...(definition.sendsDeletionJobs === true
          ? { DELETION_QUEUE_URL: { Ref: logicalIdOf(stack.deletionQueue.queue, CfnQueue) } }
          : {}),
      };

      // Act
      const fn = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[functionId];
      const variables = fn?.Properties.Environment.Variables;

      // Assess
      expect(variables).toEqual(expected);
      if (definition.auth.kind !== "user") {
        for (const name of JWT_VARIABLES) expect(Object.keys(variables ?? {})).not.toContain(name);
      }
    });
  }

  it("tells only DeleteUserData where the deletion queue is", () => {
    // Act
    const functions = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function");
    const withQueueUrl = Object.entries(functions)
      .filter(([, fn]) => "DELETION_QUEUE_URL" in fn.Properties.Environment.Variables)
      .map(([id]) => id);

    // Assess
    expect(withQueueUrl).toEqual([logicalIdOf(handlerOf({ id: "DeleteUserData" }).function, CfnFunction)]);
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

    it(`grants ${route.id} exactly its table actions${route.tableActions.length === 0 ? " (none)" : ""}`, () => {
      // Prepare
      const functionId = logicalIdOf(handlerOf(route).function, CfnFunction);
      const expectedActions = [...new Set(route.tableActions)].sort();
      const expectedResources = route.queriesIndexes ? [tableArn(), ...indexArns()] : [tableArn()];

      // Act
      const dynamoStatements = statementsWithPrefix(functionId, "dynamodb:");
      const grantedActions = actionsOf(dynamoStatements);

      // Assess
      expect(grantedActions).toEqual(expectedActions);
      expect(grantedActions).not.toContain("dynamodb:*");
      expect(grantedActions).not.toContain("dynamodb:Scan");
      expect(dynamoStatements).toHaveLength(expectedActions.length === 0 ? 0 : 1);
      for (const statement of dynamoStatements) {
        expect(statement.Effect).toBe("Allow");
        expect(asArray(statement.Resource)).toEqual(expectedResources);
      }
    });

    const definition: RouteDefinition = route;
    it(`lets ${route.id} ${definition.sendsDeletionJobs === true ? "send to the deletion queue only" : "use no queue"}`, () => {
      // Prepare
      const functionId = logicalIdOf(handlerOf(route).function, CfnFunction);

      // Act
      const queueStatements = statementsWithPrefix(functionId, "sqs:");

      // Assess
      expect(queueStatements).toEqual(
        definition.sendsDeletionJobs === true
          ? [{ Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArnOf(stack.deletionQueue.queue) }]
          : [],
      );
    });
  }

  it("gives the public OpenApiDocument function no permission beyond its own log group", () => {
    // Prepare
    const route = routes.find((candidate) => candidate.id === "OpenApiDocument");
    const handler = handlerOf({ id: "OpenApiDocument" });

    // Act
    const statements = policyStatementsOf(logicalIdOf(handler.function, CfnFunction));

    // Assess
    expect(route?.auth.kind).toBe("public");
    expect(statements.filter((statement) => asArray(statement.Action).some((a) => a.startsWith("dynamodb:")))).toEqual(
      [],
    );
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: { "Fn::GetAtt": [logicalIdOf(handler.logGroup, CfnLogGroup), "Arn"] },
      },
    ]);
  });

  it("gives no function a managed policy or a wildcard resource", () => {
    // Act
    const statements = allFunctionIds().flatMap((functionId) => policyStatementsOf(functionId));
    const resources = statements.flatMap((statement) => asArray(statement.Resource));

    // Assess
    template.allResourcesProperties("AWS::IAM::Role", { ManagedPolicyArns: Match.absent() });
    expect(resources).not.toContain("*");
    expect(JSON.stringify(resources)).not.toContain("*");
  });

  for (const [id, owner] of [
    ...routes.map((route) => [route.id, () => handlerOf(route)] as const),
    [deletionWorker.id, () => stack.deletionWorker] as const,
  ]) {
    it(`lets ${id} write to its own log group only`, () => {
      // Prepare
      const handler = owner();
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

  it("keeps every log group (one per function, plus the access log) for one month", () => {
    template.resourceCountIs("AWS::Logs::LogGroup", routes.length + 2);
    template.allResourcesProperties("AWS::Logs::LogGroup", {
      RetentionInDays: 30,
      LogGroupName: Match.absent(),
    });
  });
});

describe("Deletion queue and worker", () => {
  it("has the deletion queue and its dead-letter queue, and no other queue", () => {
    template.resourceCountIs("AWS::SQS::Queue", 2);
    expect(logicalIdOf(stack.deletionQueue.queue, CfnQueue)).not.toBe(
      logicalIdOf(stack.deletionQueue.deadLetterQueue, CfnQueue),
    );
  });

  it("moves a job's message to the dead-letter queue after 5 failed receives", () => {
    template.hasResourceProperties("AWS::SQS::Queue", {
      RedrivePolicy: { deadLetterTargetArn: queueArnOf(stack.deletionQueue.deadLetterQueue), maxReceiveCount: 5 },
    });
  });

  it("keeps dead-lettered messages 14 days, and dead-letters nothing further", () => {
    // Act
    const deadLetterQueue =
      resourcesOf<QueueResource>("AWS::SQS::Queue")[logicalIdOf(stack.deletionQueue.deadLetterQueue, CfnQueue)];

    // Assess
    expect(deadLetterQueue?.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 60 * 60 });
    expect(deadLetterQueue?.Properties).not.toHaveProperty("RedrivePolicy");
  });

  it("encrypts both queues with SQS-managed keys", () => {
    // Act
    const queues = Object.values(resourcesOf<QueueResource>("AWS::SQS::Queue"));

    // Assess
    expect(queues.map((queue) => queue.Properties.SqsManagedSseEnabled)).toEqual([true, true]);
  });

  for (const [label, queue] of [
    ["deletion queue", () => stack.deletionQueue.queue],
    ["dead-letter queue", () => stack.deletionQueue.deadLetterQueue],
  ] as const) {
    it(`denies every request to the ${label} not made over TLS`, () => {
      // Prepare
      const queueId = logicalIdOf(queue(), CfnQueue);

      // Assess
      template.hasResourceProperties("AWS::SQS::QueuePolicy", {
        Queues: [{ Ref: queueId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Effect: "Deny",
              Principal: { AWS: "*" },
              Action: "sqs:*",
              Resource: queueArnOf(queue()),
              Condition: { Bool: { "aws:SecureTransport": "false" } },
            },
          ]),
        },
      });
    });
  }

  it("gives the worker a timeout of a few minutes, within Lambda's 15-minute limit", () => {
    // Act
    const worker = resourcesOf<FunctionResource>("AWS::Lambda::Function")[workerLogicalId()];

    // Assess
    expect(worker?.Properties.Timeout).toBe(300);
  });

  it("hides a received message for at least six times the worker's timeout", () => {
    // Act
    const worker = resourcesOf<FunctionResource>("AWS::Lambda::Function")[workerLogicalId()];
    const queue = resourcesOf<QueueResource>("AWS::SQS::Queue")[logicalIdOf(stack.deletionQueue.queue, CfnQueue)];

    // Assess
    expect(worker?.Properties.Timeout).toBeGreaterThan(0);
    expect(queue?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * (worker?.Properties.Timeout ?? Infinity));
  });

  it("triggers the worker from the deletion queue one message at a time, reporting failed messages", () => {
    template.resourceCountIs("AWS::Lambda::EventSourceMapping", 1);
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: queueArnOf(stack.deletionQueue.queue),
      FunctionName: { Ref: workerLogicalId() },
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
  });

  it("gives the worker the table name and nothing else", () => {
    // Act
    const fn = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[workerLogicalId()];

    // Assess
    expect(fn?.Properties.Environment.Variables).toEqual({ TABLE_NAME: { Ref: tableLogicalId() } });
  });

  it("logs the worker to its own log group", () => {
    // Act
    const matches = template.findResources("AWS::Lambda::Function", {
      Properties: { LoggingConfig: { LogGroup: { Ref: logicalIdOf(stack.deletionWorker.logGroup, CfnLogGroup) } } },
    });

    // Assess
    expect(Object.keys(matches)).toEqual([workerLogicalId()]);
  });

  it("grants the worker exactly its table actions, on the table and each index by name", () => {
    // Prepare
    const expectedActions = [...new Set(deletionWorker.tableActions)].sort();

    // Act
    const dynamoStatements = statementsWithPrefix(workerLogicalId(), "dynamodb:");

    // Assess
    expect(deletionWorker.queriesIndexes).toBe(true);
    expect(actionsOf(dynamoStatements)).toEqual(expectedActions);
    expect(dynamoStatements).toHaveLength(1);
    expect(dynamoStatements[0]?.Effect).toBe("Allow");
    expect(asArray(dynamoStatements[0]?.Resource)).toEqual([tableArn(), ...indexArns()]);
  });

  it("lets the worker consume the deletion queue only (no send, no dead-letter queue access)", () => {
    // Act
    const queueStatements = statementsWithPrefix(workerLogicalId(), "sqs:");

    // Assess
    expect(actionsOf(queueStatements)).toEqual(QUEUE_CONSUME_ACTIONS);
    for (const statement of queueStatements) {
      expect(statement.Effect).toBe("Allow");
      expect(asArray(statement.Resource)).toEqual([queueArnOf(stack.deletionQueue.queue)]);
    }
  });

  it("lets no function touch the dead-letter queue", () => {
    // Prepare
    const deadLetterArn = JSON.stringify(queueArnOf(stack.deletionQueue.deadLetterQueue));

    // Act
    const resources = allFunctionIds().flatMap((functionId) =>
      policyStatementsOf(functionId).flatMap((statement) => asArray(statement.Resource)),
    );

    // Assess
    expect(resources.map((resource) => JSON.stringify(resource))).not.toContain(deadLetterArn);
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

describe("Cognito user directory", () => {
  it("is one user pool with one app client", () => {
    template.resourceCountIs("AWS::Cognito::UserPool", 1);
    template.resourceCountIs("AWS::Cognito::UserPoolClient", 1);
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      UserPoolId: { Ref: logicalIdOf(stack.users.userPool, CfnUserPool) },
    });
  });
});

describe("AwsSolutions checks (cdk-nag)", () => {
  it("leave no unacknowledged error", () => {
    expect(awsSolutionsFindings(stack).errors).toEqual([]);
  });

  it("leave no unacknowledged warning", () => {
    expect(awsSolutionsFindings(stack).warnings).toEqual([]);
  });

  it("are acknowledged only for the deliberate decisions, each with a written reason", () => {
    // Prepare
    const poolPath = stack.users.userPool.node.path;
    const routePaths = new Map(
      stack.node
        .findAll()
        .filter((construct): construct is CfnRoute => construct instanceof CfnRoute)
        .map((cfnRoute) => [String(stack.resolve(cfnRoute.routeKey)), cfnRoute.node.scope?.node.path ?? ""]),
    );
    const expected = [
      { path: poolPath, id: "AwsSolutions-COG2" },
      { path: poolPath, id: "AwsSolutions-COG8" },
      ...routes.map((route) => ({ path: routePaths.get(`${route.method} ${route.path}`), id: "AwsSolutions-APIG4" })),
    ];
    const byPathAndId = (a: { path: string | undefined; id: string }, b: { path: string | undefined; id: string }) =>
      `${a.path} ${a.id}`.localeCompare(`${b.path} ${b.id}`);

    // Act
    const acknowledged = acknowledgementsIn(stack);

    // Assess
    expect(acknowledged.map(({ path, id }) => ({ path, id })).sort(byPathAndId)).toEqual(expected.sort(byPathAndId));
    for (const { reason } of acknowledged) {
      expect(reason.length).toBeGreaterThan(150);
    }
  });

  for (const route of routes) {
    it(`explains how ${route.id} authenticates without an API Gateway authorizer`, () => {
      // Prepare
      const cfnRoute = stack.node
        .findAll()
        .find(
          (construct) =>
            construct instanceof CfnRoute && stack.resolve(construct.routeKey) === `${route.method} ${route.path}`,
        );

      // Act
      const reasons = acknowledgementsIn(stack)
        .filter((ack) => ack.id === "AwsSolutions-APIG4" && ack.path === cfnRoute?.node.scope?.node.path)
        .map((ack) => ack.reason);

      // Assess
      const expected = { apiKey: /API key/, user: /aws-jwt-verify/, public: /OpenAPI/ } as const;
      expect(reasons).toEqual([expect.stringMatching(expected[route.auth.kind])]);
    });
  }
});
