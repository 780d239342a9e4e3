import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App, type CfnElement } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnApi, CfnRoute } from "aws-cdk-lib/aws-apigatewayv2";
import { CfnAlarm } from "aws-cdk-lib/aws-cloudwatch";
import { CfnUserPool, CfnUserPoolClient } from "aws-cdk-lib/aws-cognito";
import { CfnTable } from "aws-cdk-lib/aws-dynamodb";
import { CfnEventBus } from "aws-cdk-lib/aws-events";
import { CfnRole } from "aws-cdk-lib/aws-iam";
import { CfnKey } from "aws-cdk-lib/aws-kms";
import { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { CfnLogGroup } from "aws-cdk-lib/aws-logs";
import { CfnBucket } from "aws-cdk-lib/aws-s3";
import { CfnTopic } from "aws-cdk-lib/aws-sns";
import { CfnQueue } from "aws-cdk-lib/aws-sqs";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { readBundleSettings } from "../../bench/harness/packaging.js";
import {
  type ApiFunctionDefinition,
  alertDeliveryWorker,
  apiFunctions,
  cursorSecretSetup,
  deletionWorker,
  exportChangeMarker,
  exportJob,
  monitorEvaluator,
  PARTITIONS,
  type PayloadAccess,
  type RouteDefinition,
  routes,
  streamConsumer,
  type TableGrant,
  type WorkerDefinition,
} from "../../functions/routes.js";
import {
  GLOBAL_INDEXES,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
} from "../../functions/store/table/table-definition.js";
import {
  DEPLOYMENT_MANAGED_POLICY_REASON,
  DEPLOYMENT_RUNTIME_REASON,
  DEPLOYMENT_WILDCARD_REASON,
  deploymentFindings,
} from "../../lib/constructs/console-deployment.js";
import { DISTRIBUTION_REASONS } from "../../lib/constructs/console-site.js";
import { edgeLimitOf } from "../../lib/constructs/edge-rate-rules.js";
import { DEFAULT_EDGE_LIMITS } from "../../lib/constructs/edge-settings.js";
import {
  EXPORT_ACCESS_LOGS_REASON,
  EXPORT_OBJECT_PREFIXES,
  EXPORT_OBJECT_WILDCARD_REASON,
} from "../../lib/constructs/export-bucket.js";
import { RESULTS_ACCESS_LOGS_REASON } from "../../lib/constructs/export-catalog.js";
import {
  LATENCY_P99_THRESHOLD_MS,
  MAX_METRICS_PER_ALARM,
  MIN_REQUESTS_FOR_ERROR_RATE,
  SERVER_ERROR_RATE_PERCENT,
  SERVICE_TABLE_OPERATIONS,
  STREAM_ITERATOR_AGE_THRESHOLD_MS,
} from "../../lib/constructs/operations-dashboard.js";
import { ACCESS_LOGS_REASON, OBJECT_WILDCARD_REASON } from "../../lib/constructs/payload-bucket.js";
import { FAILURE_QUEUE_REASON } from "../../lib/constructs/stream-counting.js";
import { LIST_STREAMS_REASON } from "../../lib/constructs/stream-reader.js";
import { AgentTrackingStack, CONSOLE_ASSET_CONTEXT_KEY } from "../../lib/service-stack.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { acknowledgementsIn, awsSolutionsFindings } from "./nag-findings.js";

/** A tiny prebuilt console: the stack tests check the stack, not the console build (console-site.test.ts runs that). */
const CONSOLE_FIXTURE = fileURLToPath(new URL("./fixtures/console", import.meta.url));

/** Synthesis bundles every handler with esbuild once; allow for a slow machine. */
const SYNTH_TIMEOUT_MS = 180_000;

interface FunctionResource {
  readonly Properties: { readonly Role: unknown; readonly Timeout: number; readonly MemorySize: number };
}
interface PolicyStatementJson {
  readonly Effect: string;
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
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
    readonly RouteSettings?: Readonly<
      Record<string, { readonly ThrottlingRateLimit: number; readonly ThrottlingBurstLimit: number }>
    >;
  };
  readonly DependsOn?: readonly string[];
}

interface MetricJson {
  readonly MetricName: string;
  readonly Namespace: string;
  readonly Dimensions?: readonly { readonly Name: string; readonly Value: unknown }[];
}
interface AlarmResource {
  readonly Properties: {
    readonly Threshold: number;
    readonly ComparisonOperator: string;
    readonly TreatMissingData?: string;
    readonly MetricName?: string;
    readonly Namespace?: string;
    readonly ExtendedStatistic?: string;
    readonly Statistic?: string;
    readonly Period?: number;
    readonly EvaluationPeriods?: number;
    readonly Dimensions?: readonly { readonly Name: string; readonly Value: unknown }[];
    readonly Metrics?: readonly {
      readonly Id: string;
      readonly Expression?: string;
      readonly MetricStat?: { readonly Metric: MetricJson };
    }[];
    readonly AlarmActions: readonly unknown[];
    readonly OKActions: readonly unknown[];
  };
}

/**
 * The S3 actions each kind of payload access implies (see the grant helpers
 * of `PayloadBucket`). `s3:ListBucket` is on the bucket ARN, every other
 * action on the `payloads/*` objects.
 */
const PAYLOAD_ACTIONS: Readonly<Record<PayloadAccess, readonly string[]>> = {
  write: ["s3:PutObject", "s3:PutObjectTagging"],
  read: ["s3:GetObject", "s3:ListBucket"],
  delete: ["s3:DeleteObject", "s3:ListBucket"],
};

/** The variables with which the key-management handlers verify Cognito access tokens. */
const JWT_VARIABLES = ["JWT_ISSUER", "JWT_CLIENT_ID", "JWT_JWKS_URI"] as const;

/**
 * The actions Lambda needs on a DynamoDB stream (the event source mapping reads it with the function's
 * role): record reads on the stream's ARN, and `ListStreams`, which has no resource type (`*` only).
 */
const STREAM_READ_ACTIONS = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"] as const;
const STREAM_ACTIONS: readonly string[] = [...STREAM_READ_ACTIONS, "dynamodb:ListStreams"];

/** The actions the SQS event source grants the worker: consume, nothing else. */
const QUEUE_CONSUME_ACTIONS = [
  "sqs:ChangeMessageVisibility",
  "sqs:DeleteMessage",
  "sqs:GetQueueAttributes",
  "sqs:GetQueueUrl",
  "sqs:ReceiveMessage",
] as const;

let stack: AgentTrackingStack;
let app: App;
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

/** The function of the API that serves `definition`'s routes (its own route's, or its function group's). */
function functionOf(definition: ApiFunctionDefinition) {
  const [first] = definition.routes;
  if (first === undefined) throw new Error(`function ${definition.id} serves no route`);
  return handlerOf(first);
}

function tableLogicalId(): string {
  return logicalIdOf(stack.table.table, CfnTable);
}

function tableArn() {
  return { "Fn::GetAtt": [tableLogicalId(), "Arn"] };
}

function bucketLogicalId(): string {
  return logicalIdOf(stack.payloads.bucket, CfnBucket);
}

function bucketArn() {
  return { "Fn::GetAtt": [bucketLogicalId(), "Arn"] };
}

/** The payload bucket's resource in the template (the stack has the console's bucket too). */
function payloadBucket():
  | { Properties: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
  | undefined {
  return resourcesOf<{ Properties: Record<string, unknown> }>("AWS::S3::Bucket")[bucketLogicalId()];
}

function consoleBucketLogicalId(): string {
  return logicalIdOf(stack.consoleSite.bucket, CfnBucket);
}

/** The BucketDeployment's singleton handler (aws-cdk-lib's): the scope of its role. */
function consoleDeploymentHandlerId(): string {
  const handler = stack.consoleDeployment.deployment.handlerRole.node.scope;
  if (handler === undefined) throw new Error("deployment role has no scope");
  return logicalIdOf(handler, CfnFunction);
}

function consoleDeploymentRoleId(): string {
  return logicalIdOf(stack.consoleDeployment.deployment.handlerRole, CfnRole);
}

/** `<bucket ARN>/payloads/*`: the one wildcard resource a function may hold. */
function payloadObjectsArn() {
  return { "Fn::Join": ["", [bucketArn(), "/payloads/*"]] };
}

/** The functions of the stack with their definition: one per route or function group, then the workers. */
function definedFunctions(): readonly {
  readonly id: string;
  readonly functionId: string;
  readonly payloadAccess: PayloadAccess | undefined;
  readonly rolePath: string;
}[] {
  const owners = [
    ...apiFunctions.map((definition) => ({ definition, fn: functionOf(definition).function })),
    { definition: deletionWorker, fn: stack.deletionWorker.function },
    { definition: streamConsumer, fn: stack.streamConsumer.function },
    { definition: monitorEvaluator, fn: stack.monitorEvaluator.function },
    { definition: alertDeliveryWorker, fn: stack.alertDeliveryWorker.function },
  ];
  return owners.map(({ definition, fn }) => ({
    id: definition.id,
    functionId: logicalIdOf(fn, CfnFunction),
    payloadAccess: definition.payloadAccess,
    rolePath: fn.role?.node.path ?? "",
  }));
}

/** The alarms of the OperationsDashboard whose construct id starts with `idPrefix`, in creation order. */
function alarmsWithIdPrefix(idPrefix: string): readonly AlarmResource[] {
  const alarms = resourcesOf<AlarmResource>("AWS::CloudWatch::Alarm");
  return stack.operations.alarms
    .filter((alarm) => alarm.node.id.startsWith(idPrefix))
    .map((alarm) => {
      const resource = alarms[logicalIdOf(alarm, CfnAlarm)];
      if (resource === undefined) throw new Error(`alarm ${alarm.node.path} not in template`);
      return resource;
    });
}

/** The metrics a metric-math alarm reads (its `MetricStat` queries). */
function alarmMetrics(alarms: readonly AlarmResource[]): readonly MetricJson[] {
  return alarms.flatMap((alarm) =>
    (alarm.Properties.Metrics ?? []).flatMap((query) => (query.MetricStat ? [query.MetricStat.Metric] : [])),
  );
}

function dimension(metric: MetricJson, name: string): unknown {
  return metric.Dimensions?.find((candidate) => candidate.Name === name)?.Value;
}

/** The granular IAM4/IAM5 findings of the console deployment handler's role. */
function consoleDeploymentFindingIds(): readonly string[] {
  const { managedPolicy, wildcards } = deploymentFindings(consoleBucketLogicalId());
  return [...managedPolicy, ...wildcards];
}

/** The granular AwsSolutions-IAM5 finding of a grant on `<payload bucket ARN>/payloads/*`. */
function payloadObjectsFinding(): string {
  return `AwsSolutions-IAM5[Resource::<${bucketLogicalId()}.Arn>/payloads/*]`;
}

/** The delivery worker's environment variables. */
function alertWorkerEnvironment(): Record<string, unknown> {
  return resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[alertWorkerLogicalId()]?.Properties
    .Environment.Variables as Record<string, unknown>;
}

function alertWorkerLogicalId(): string {
  return logicalIdOf(stack.alertDeliveryWorker.function, CfnFunction);
}

function workerLogicalId(): string {
  return logicalIdOf(stack.deletionWorker.function, CfnFunction);
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

function exportFunctionLogicalId(): string {
  return logicalIdOf(stack.exportJob.handler.function, CfnFunction);
}

function exportBucketLogicalId(): string {
  return logicalIdOf(stack.exportBucket.bucket, CfnBucket);
}

/** `<export bucket ARN>/table=*` and `/manifests/*`: the export's objects. */
function exportObjectArns() {
  return EXPORT_OBJECT_PREFIXES.map((prefix) => ({
    "Fn::Join": ["", [{ "Fn::GetAtt": [exportBucketLogicalId(), "Arn"] }, `/${prefix}*`]],
  }));
}

/** The IAM5 findings of the export's object grants. */
function exportObjectsFindings(): string[] {
  return EXPORT_OBJECT_PREFIXES.map(
    (prefix) => `AwsSolutions-IAM5[Resource::<${exportBucketLogicalId()}.Arn>/${prefix}*]`,
  );
}

function evaluatorLogicalId(): string {
  return logicalIdOf(stack.monitorEvaluator.function, CfnFunction);
}

function consumerLogicalId(): string {
  return logicalIdOf(stack.streamConsumer.function, CfnFunction);
}

function markerLogicalId(): string {
  return logicalIdOf(stack.exportChangeMarker.function, CfnFunction);
}

function tableStreamArn() {
  return { "Fn::GetAtt": [tableLogicalId(), "StreamArn"] };
}

function busArn() {
  return { "Fn::GetAtt": [logicalIdOf(stack.streamCounting.bus, CfnEventBus), "Arn"] };
}

function queueArnOf(queue: IConstruct) {
  return { "Fn::GetAtt": [logicalIdOf(queue, CfnQueue), "Arn"] };
}

function cursorSecretFunctionId(): string {
  return logicalIdOf(stack.cursorSecretFunction.function, CfnFunction);
}

/** The functions the operations dashboard watches: one per route or function group, then the workers. */
function monitoredFunctionIds(): readonly string[] {
  return [
    ...apiFunctions.map((definition) => logicalIdOf(functionOf(definition).function, CfnFunction)),
    workerLogicalId(),
    consumerLogicalId(),
    markerLogicalId(),
    evaluatorLogicalId(),
    alertWorkerLogicalId(),
    exportFunctionLogicalId(),
  ];
}

/** Every function of the stack: one per route or function group, the workers and the cursor-secret setup. */
function allFunctionIds(): readonly string[] {
  return [
    ...apiFunctions.map((definition) => logicalIdOf(functionOf(definition).function, CfnFunction)),
    workerLogicalId(),
    consumerLogicalId(),
    markerLogicalId(),
    cursorSecretFunctionId(),
    evaluatorLogicalId(),
    alertWorkerLogicalId(),
    exportFunctionLogicalId(),
  ];
}

/** A DynamoDB statement reduced to what it allows: actions (sorted), resources, conditions. */
function normalisedStatement(statement: PolicyStatementJson) {
  return {
    effect: statement.Effect,
    actions: [...asArray(statement.Action)].sort(),
    resources: asArray(statement.Resource),
    condition: statement.Condition,
  };
}

/** The statement the stack must make of one grant of the route table. */
function expectedStatement(grant: TableGrant) {
  const indexes = grant.indexes ?? [];
  return {
    effect: "Allow",
    actions: [...new Set(grant.actions)].sort(),
    resources:
      indexes.length === 0
        ? [tableArn()]
        : indexes.map((indexName) => ({ "Fn::Join": ["", [tableArn(), `/index/${indexName}`]] })),
    condition: {
      "ForAllValues:StringLike": {
        "dynamodb:LeadingKeys": [...grant.partitions],
      },
      Null: { "dynamodb:LeadingKeys": "false" },
      ...(grant.attributes === undefined
        ? {}
        : {
            "ForAllValues:StringEquals": { "dynamodb:Attributes": [...grant.attributes] },
            StringEqualsIfExists: { "dynamodb:ReturnValues": ["NONE", "UPDATED_OLD", "UPDATED_NEW"] },
          }),
    },
  };
}

/** (action, resource, condition) triples a set of statements allows: insensitive to how statements are merged. */
function allowedTriples(statements: readonly ReturnType<typeof normalisedStatement>[]): string[] {
  const triples = statements.flatMap((statement) =>
    statement.actions.flatMap((action) =>
      statement.resources.map((resource) => JSON.stringify([statement.effect, action, resource, statement.condition])),
    ),
  );
  return [...new Set(triples)].sort();
}

/** Asserts a function's DynamoDB table statements allow exactly what its definition's grants declare. */
function expectTableGrants(functionId: string, definition: Pick<WorkerDefinition, "tableGrants">): void {
  const actual = allowedTriples(tableStatementsOf(functionId).map(normalisedStatement));
  const expected = allowedTriples(definition.tableGrants.map(expectedStatement));
  expect(actual).toEqual(expected);
}

/** Whether a DynamoDB statement could allow `action` on a partition key starting with `prefix`. */
function allowsOnPrefix(statement: PolicyStatementJson, action: string, prefix: string): boolean {
  if (!asArray(statement.Action).includes(action)) return false;
  const patterns = asArray(
    (statement.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"] ?? []) as string | readonly string[],
  );
  return patterns.some((pattern) => pattern.startsWith(prefix) || prefix.startsWith(pattern.replace(/\*.*$/, "")));
}

function statementsWithPrefix(functionLogicalId: string, prefix: string): readonly PolicyStatementJson[] {
  return policyStatementsOf(functionLogicalId).filter((statement) =>
    asArray(statement.Action).some((action) => action.startsWith(prefix)),
  );
}

/** Whether a statement holds DynamoDB Streams actions only (the stream consumer's event source). */
function isStreamStatement(statement: PolicyStatementJson): boolean {
  return asArray(statement.Action).every((action) => STREAM_ACTIONS.includes(action));
}

/** A function's DynamoDB statements on the table and its indexes (not on its stream). */
function tableStatementsOf(functionLogicalId: string): readonly PolicyStatementJson[] {
  return statementsWithPrefix(functionLogicalId, "dynamodb:").filter((statement) => !isStreamStatement(statement));
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
  app = new App({
    context: { ...context, [CONSOLE_ASSET_CONTEXT_KEY]: CONSOLE_FIXTURE, "@aws-cdk/core:stackResourceLimit": 1000 },
  });

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
  it("creates exactly one function per route, plus the deletion worker, the stream consumer, the export's change marker, the monitors' evaluator, the alert delivery worker, the export and the cursor-secret setup (and the console deployment's handler)", () => {
    template.resourceCountIs("AWS::Lambda::Function", apiFunctions.length + 8);
    expect(new Set(allFunctionIds()).size, JSON.stringify(allFunctionIds())).toBe(apiFunctions.length + 7);
    // A function group's routes share its function; every other route has one of its own.
    for (const definition of apiFunctions) {
      for (const route of definition.routes) expect(handlerOf(route), route.id).toBe(functionOf(definition));
    }
    expect(Object.keys(template.findResources("AWS::Lambda::Function"))).toContain(consoleDeploymentHandlerId());
  });

  it("applies the service defaults to every function of the service", () => {
    // Act
    const functions = resourcesOf<{ Properties: Record<string, unknown> }>("AWS::Lambda::Function");

    // Assess
    for (const functionId of allFunctionIds()) {
      expect(functions[functionId]?.Properties, functionId).toMatchObject({
        Runtime: "nodejs24.x",
        Architectures: ["arm64"],
        // The export holds a unit's rows and its Parquet file in memory.
        MemorySize: functionId === exportFunctionLogicalId() ? 2048 : 1024,
        Handler: "index.handler",
        Environment: { Variables: expect.objectContaining({ TABLE_NAME: { Ref: tableLogicalId() } }) },
      });
      expect(functions[functionId]?.Properties, functionId).not.toHaveProperty("FunctionName");
    }
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

    expect(new Set(routes.map((route) => route.auth.kind))).toEqual(
      new Set(["apiKey", "user", "apiKeyOrUser", "signedIn", "feedbackToken", "public"]),
    );
    expect(withQueue).toEqual(["DeleteUserData"]);
  });

  for (const definition of apiFunctions) {
    const extras = [
      ...(definition.acceptsUserToken ? ["the user pool"] : []),
      ...(definition.sendsDeletionJobs ? ["the deletion queue"] : []),
      ...(definition.payloadAccess !== undefined ? ["the payload bucket"] : []),
      ...(definition.exportAccess !== undefined ? ["the export bucket"] : []),
      ...(definition.sendsAlertNotifications ? ["the notifications bus and the console's address"] : []),
      ...(definition.queuesAlertDeliveries ? ["the alert delivery queue"] : []),
    ];
    const kinds = [...new Set(definition.routes.map((route) => route.auth.kind))].join(", ");
    it(`gives ${definition.id} (${kinds}) the table name${extras.map((extra) => ` and ${extra}`).join("")}, nothing else`, () => {
      // Prepare: the JWKS URI is left to its default, `<issuer>/.well-known/jwks.json`.
      const functionId = logicalIdOf(functionOf(definition).function, CfnFunction);
      const expected = {
        TABLE_NAME: { Ref: tableLogicalId() },
        ...(definition.acceptsUserToken
          ? {
              JWT_ISSUER: { "Fn::GetAtt": [logicalIdOf(stack.users.userPool, CfnUserPool), "ProviderURL"] },
              JWT_CLIENT_ID: { Ref: logicalIdOf(stack.users.client, CfnUserPoolClient) },
            }
          : {}),
        ...(definition.sendsDeletionJobs
          ? { DELETION_QUEUE_URL: { Ref: logicalIdOf(stack.deletionQueue.queue, CfnQueue) } }
          : {}),
        ...(definition.payloadAccess !== undefined ? { PAYLOAD_BUCKET: { Ref: bucketLogicalId() } } : {}),
        ...(definition.exportAccess !== undefined ? { EXPORT_BUCKET: { Ref: exportBucketLogicalId() } } : {}),
        ...(definition.sendsAlertNotifications
          ? {
              SESSION_EVENTS_BUS: { Ref: logicalIdOf(stack.streamCounting.bus, CfnEventBus) },
              ATS_CONSOLE_URL: alertWorkerEnvironment().ATS_CONSOLE_URL,
            }
          : {}),
        ...(definition.queuesAlertDeliveries
          ? { ALERT_DELIVERY_QUEUE_URL: { Ref: logicalIdOf(stack.alertDelivery.queue, CfnQueue) } }
          : {}),
      };

      // Act
      const fn = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[functionId];
      const variables = fn?.Properties.Environment.Variables;

      // Assess
      expect(variables).toEqual(expected);
      if (!definition.acceptsUserToken) {
        for (const name of JWT_VARIABLES) expect(Object.keys(variables ?? {})).not.toContain(name);
      }
    });
  }

  it("has functions with every kind of payload access, so the payload checks below cover them all", () => {
    // Act
    const access = Object.fromEntries(
      definedFunctions().flatMap(({ id, payloadAccess }) => (payloadAccess === undefined ? [] : [[id, payloadAccess]])),
    );

    // Assess
    expect(new Set(Object.values(access))).toEqual(new Set(["write", "read", "delete"]));
    expect(access).toMatchObject({
      CreateEvent: "write",
      CreateEventBatch: "write",
      ListEvents: "read",
      DeleteSession: "delete",
      DeletionWorker: "delete",
      StreamConsumer: "delete",
    });
    expect(Object.keys(access).length).toBeLessThan(routes.length + 2);
  });

  it("tells exactly the functions with payload access where the payload bucket is", () => {
    // Prepare
    const expected = definedFunctions()
      .filter(({ payloadAccess }) => payloadAccess !== undefined)
      .map(({ functionId }) => functionId)
      .sort();

    // Act
    const functions = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function");
    const withBucket = Object.entries(functions).filter(
      ([, fn]) => "PAYLOAD_BUCKET" in fn.Properties.Environment.Variables,
    );

    // Assess
    expect(withBucket.map(([id]) => id).sort()).toEqual(expected);
    for (const [, fn] of withBucket) {
      expect(fn.Properties.Environment.Variables).toHaveProperty("PAYLOAD_BUCKET", { Ref: bucketLogicalId() });
    }
  });

  it("tells only DeleteUserData where the deletion queue is", () => {
    // Act
    const functions = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function");
    const withQueueUrl = Object.entries(functions)
      .filter(([, fn]) => "DELETION_QUEUE_URL" in fn.Properties.Environment.Variables)
      .map(([id]) => id);

    // Assess
    expect(withQueueUrl).toEqual([logicalIdOf(handlerOf({ id: "DeleteUserData" }).function, CfnFunction)]);
  });

  for (const definition of apiFunctions) {
    it(`logs ${definition.id} to its own log group`, () => {
      // Prepare
      const handler = functionOf(definition);
      const functionId = logicalIdOf(handler.function, CfnFunction);
      const logGroupId = logicalIdOf(handler.logGroup, CfnLogGroup);

      // Act
      const matches = template.findResources("AWS::Lambda::Function", {
        Properties: { LoggingConfig: { LogGroup: { Ref: logGroupId } } },
      });

      // Assess
      expect(Object.keys(matches)).toEqual([functionId]);
    });

    const serves = definition.routes.length > 1 ? ` (its routes' together: ${definition.routes.length} routes)` : "";
    it(`grants ${definition.id} exactly its table grants${serves}, each limited to its partitions${definition.tableGrants.length === 0 ? " (none)" : ""}`, () => {
      // Prepare
      const functionId = logicalIdOf(functionOf(definition).function, CfnFunction);

      // Act
      const grantedActions = actionsOf(statementsWithPrefix(functionId, "dynamodb:"));

      // Assess
      expectTableGrants(functionId, definition);
      expect(grantedActions).not.toContain("dynamodb:*");
      expect(grantedActions).not.toContain("dynamodb:Scan");
    });

    const sendsTo = definition.sendsDeletionJobs
      ? "send to the deletion queue only"
      : definition.queuesAlertDeliveries
        ? "send to the alert delivery queue only"
        : "use no queue";
    it(`lets ${definition.id} ${sendsTo}`, () => {
      // Prepare
      const functionId = logicalIdOf(functionOf(definition).function, CfnFunction);

      // Act
      const queueStatements = statementsWithPrefix(functionId, "sqs:");

      // Assess
      expect(queueStatements).toEqual(
        definition.sendsDeletionJobs
          ? [{ Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArnOf(stack.deletionQueue.queue) }]
          : definition.queuesAlertDeliveries
            ? [{ Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArnOf(stack.alertDelivery.queue) }]
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

  it("gives no function a managed policy, a wildcard action, or a wildcard resource other than the payload objects (and the consumer's ListStreams)", () => {
    // Prepare: S3 object ARNs cannot name keys unknown at deploy time; `<bucket>/payloads/*` is the only
    // exception, beside the stream consumer's dynamodb:ListStreams, an action without a resource type.
    const payloadObjects = JSON.stringify(payloadObjectsArn());
    // The export's objects (issue 35): its function's and GET /api/exports' grants, on table=* and manifests/*.
    const exportObjects = exportObjectArns().map((arn) => JSON.stringify(arn));
    const isListStreams = (statement: PolicyStatementJson) =>
      statement.Effect === "Allow" &&
      JSON.stringify(asArray(statement.Action)) === JSON.stringify(["dynamodb:ListStreams"]) &&
      JSON.stringify(asArray(statement.Resource)) === JSON.stringify(["*"]) &&
      statement.Condition === undefined;

    // Act
    const everyStatement = allFunctionIds().flatMap((functionId) =>
      policyStatementsOf(functionId).map((statement) => ({ functionId, statement })),
    );
    const statements = everyStatement.filter(({ statement }) => !isListStreams(statement)).map((x) => x.statement);
    const resources = statements.flatMap((statement) => asArray(statement.Resource).map((r) => JSON.stringify(r)));
    const actions = statements.flatMap((statement) => asArray(statement.Action));
    const onPayloadObjects = statements.filter((statement) =>
      asArray(statement.Resource).some((r) => JSON.stringify(r) === payloadObjects),
    );

    // Assess: the console deployment's handler (aws-cdk-lib's) is the one role with a managed policy.
    const roles = resourcesOf<{ Properties: { ManagedPolicyArns?: unknown } }>("AWS::IAM::Role");
    expect(
      Object.entries(roles)
        .filter(([, role]) => role.Properties.ManagedPolicyArns !== undefined)
        .map(([id]) => id),
    ).toEqual([consoleDeploymentRoleId()]);
    expect(resources).not.toContain(JSON.stringify("*"));
    expect(
      resources.filter(
        (resource) => resource.includes("*") && resource !== payloadObjects && !exportObjects.includes(resource),
      ),
    ).toEqual([]);
    expect(everyStatement.filter(({ statement }) => isListStreams(statement)).map((x) => x.functionId)).toEqual([
      consumerLogicalId(),
      markerLogicalId(),
    ]);
    expect(actions.filter((action) => action.includes("*"))).toEqual([]);
    // The exception is used, and only for object actions on the payload objects alone.
    expect(onPayloadObjects.length).toBeGreaterThan(0);
    for (const statement of onPayloadObjects) {
      expect(asArray(statement.Resource)).toEqual([payloadObjectsArn()]);
      for (const action of asArray(statement.Action)) {
        expect(["s3:PutObject", "s3:PutObjectTagging", "s3:GetObject", "s3:DeleteObject"]).toContain(action);
      }
    }
  });

  for (const { id, access } of [
    ...apiFunctions.map((definition) => ({ id: definition.id, access: definition.payloadAccess })),
    { id: deletionWorker.id, access: deletionWorker.payloadAccess },
    { id: streamConsumer.id, access: streamConsumer.payloadAccess },
    { id: monitorEvaluator.id, access: monitorEvaluator.payloadAccess },
  ]) {
    it(`grants ${id} ${access === undefined ? "no S3 action" : `exactly the S3 actions of payload ${access} access`}`, () => {
      // Prepare
      const fn = definedFunctions().find((candidate) => candidate.id === id);
      const expectedActions = access === undefined ? [] : PAYLOAD_ACTIONS[access];

      // Act
      const s3Statements = statementsWithPrefix(fn?.functionId ?? "", "s3:").filter(
        (statement) => !JSON.stringify(statement.Resource).includes(exportBucketLogicalId()),
      );

      // Assess
      expect(actionsOf(s3Statements)).toEqual(expectedActions);
      for (const statement of s3Statements) {
        expect(statement.Effect).toBe("Allow");
        const actions = asArray(statement.Action);
        const expectedResource = actions.every((action) => action === "s3:ListBucket")
          ? bucketArn()
          : payloadObjectsArn();
        if (actions.includes("s3:ListBucket")) expect(actions).toEqual(["s3:ListBucket"]);
        expect(asArray(statement.Resource)).toEqual([expectedResource]);
      }
    });
  }

  for (const [id, owner] of [
    ...apiFunctions.map((definition) => [definition.id, () => functionOf(definition)] as const),
    [deletionWorker.id, () => stack.deletionWorker] as const,
    [streamConsumer.id, () => stack.streamConsumer] as const,
    [exportChangeMarker.id, () => stack.exportChangeMarker] as const,
    [monitorEvaluator.id, () => stack.monitorEvaluator] as const,
    [alertDeliveryWorker.id, () => stack.alertDeliveryWorker] as const,
    [exportJob.id, () => stack.exportJob.handler] as const,
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

  it("gives the export bucket to exactly the routes with export access (read) and the export function (write)", () => {
    // Prepare
    // Resources in a stable order (synthesis may list a statement's resources in either order).
    const onExportBucket = (functionId: string) =>
      statementsWithPrefix(functionId, "s3:")
        .filter((statement) => JSON.stringify(statement.Resource).includes(exportBucketLogicalId()))
        .map((statement) => ({
          ...statement,
          ...(Array.isArray(statement.Action) ? { Action: [...statement.Action].sort() } : {}),
          ...(Array.isArray(statement.Resource) ? { Resource: [...statement.Resource].sort(byJson) } : {}),
        }));
    const exportBucketArn = { "Fn::GetAtt": [exportBucketLogicalId(), "Arn"] };
    const readers = apiFunctions.filter((definition) => definition.exportAccess === "read");

    // Assess
    expect(readers.map((definition) => definition.id)).toEqual(["ListExports"]);
    for (const definition of apiFunctions) {
      const statements = onExportBucket(logicalIdOf(functionOf(definition).function, CfnFunction));
      if (definition.exportAccess === undefined) {
        expect(statements, definition.id).toEqual([]);
        continue;
      }
      expect(statements).toEqual([
        {
          Effect: "Allow",
          Action: "s3:ListBucket",
          Resource: exportBucketArn,
          Condition: { StringLike: { "s3:prefix": ["manifests/*"] } },
        },
        { Effect: "Allow", Action: "s3:GetObject", Resource: [...exportObjectArns()].sort(byJson) },
      ]);
    }
    expect(onExportBucket(exportFunctionLogicalId())).toEqual([
      { Effect: "Allow", Action: "s3:ListBucket", Resource: exportBucketArn },
      {
        Effect: "Allow",
        Action: ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:GetObject", "s3:PutObject"],
        Resource: [...exportObjectArns()].sort(byJson),
      },
    ]);
    for (const functionId of [workerLogicalId(), consumerLogicalId(), evaluatorLogicalId(), alertWorkerLogicalId()]) {
      expect(onExportBucket(functionId), functionId).toEqual([]);
    }
  });

  it("grants the export function exactly the export worker's table grants", () => {
    // Act
    const statements = statementsWithPrefix(exportFunctionLogicalId(), "dynamodb:").map(normalisedStatement);

    // Assess
    expect(statements).toHaveLength(exportJob.tableGrants.length);
    for (const [index, grant] of exportJob.tableGrants.entries()) {
      expect(statements[index]?.actions).toEqual([...grant.actions].sort());
      expect(statements[index]?.condition).toMatchObject({
        "ForAllValues:StringLike": { "dynamodb:LeadingKeys": grant.partitions },
      });
    }
  });

  it("keeps every log group (one per function, plus the access log and the console deployment's) for one month", () => {
    template.resourceCountIs("AWS::Logs::LogGroup", apiFunctions.length + 9);
    template.allResourcesProperties("AWS::Logs::LogGroup", {
      RetentionInDays: 30,
      LogGroupName: Match.absent(),
    });
  });
});

describe("Deletion queue and worker", () => {
  it("has the deletion queue, the alert delivery queue, their dead-letter queues and the stream's failure queue, and no other queue", () => {
    template.resourceCountIs("AWS::SQS::Queue", 5);
    expect(
      new Set(
        [
          stack.deletionQueue.queue,
          stack.deletionQueue.deadLetterQueue,
          stack.alertDelivery.queue,
          stack.alertDelivery.deadLetterQueue,
          stack.streamCounting.failureQueue,
        ].map((queue) => logicalIdOf(queue, CfnQueue)),
      ).size,
    ).toBe(5);
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

  it("encrypts every queue (deletion, alert delivery, their dead-letter queues, the stream's failure queue) with SQS-managed keys", () => {
    // Act
    const queues = Object.values(resourcesOf<QueueResource>("AWS::SQS::Queue"));

    // Assess
    expect(queues.map((queue) => queue.Properties.SqsManagedSseEnabled)).toEqual([true, true, true, true, true]);
  });

  for (const [label, queue] of [
    ["deletion queue", () => stack.deletionQueue.queue],
    ["dead-letter queue", () => stack.deletionQueue.deadLetterQueue],
    ["stream's failure queue", () => stack.streamCounting.failureQueue],
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
    expect(
      Object.keys(
        template.findResources("AWS::Lambda::EventSourceMapping", {
          Properties: { EventSourceArn: queueArnOf(stack.deletionQueue.queue) },
        }),
      ),
    ).toHaveLength(1);
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: queueArnOf(stack.deletionQueue.queue),
      FunctionName: { Ref: workerLogicalId() },
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
  });

  it("gives the worker the table name, the payload bucket (it deletes payloads) and nothing else", () => {
    // Act
    const fn = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[workerLogicalId()];

    // Assess
    expect(deletionWorker.payloadAccess).toBe("delete");
    expect(fn?.Properties.Environment.Variables).toEqual({
      TABLE_NAME: { Ref: tableLogicalId() },
      PAYLOAD_BUCKET: { Ref: bucketLogicalId() },
    });
  });

  it("logs the worker to its own log group", () => {
    // Act
    const matches = template.findResources("AWS::Lambda::Function", {
      Properties: { LoggingConfig: { LogGroup: { Ref: logicalIdOf(stack.deletionWorker.logGroup, CfnLogGroup) } } },
    });

    // Assess
    expect(Object.keys(matches)).toEqual([workerLogicalId()]);
  });

  it("grants the worker exactly its table grants, each limited to its partitions (GSI3 by name for the user's sessions)", () => {
    // Assess
    expectTableGrants(workerLogicalId(), deletionWorker);
    expect(JSON.stringify(statementsWithPrefix(workerLogicalId(), "dynamodb:"))).toContain("/index/GSI3");
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

describe("CloudFormation's resource limit", () => {
  // The synthesis above lifts CDK's own check of the limit (the `stackResourceLimit` context) so that every other
  // assertion of this file still runs when the stack outgrows it; this test is what holds the limit.
  it("keeps the stack within CloudFormation's 500 resources", () => {
    const count = Object.keys(template.toJSON().Resources as Record<string, unknown>).length;
    console.info(`resources in the stack: ${count}`);
    expect(count, "resources in the stack (CloudFormation refuses more than 500)").toBeLessThanOrEqual(500);
  });
});

describe("Alert delivery queue and worker", () => {
  it("dead-letters a delivery message after 3 failed receives, with a visibility timeout six times the worker's", () => {
    template.hasResourceProperties("AWS::SQS::Queue", {
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: queueArnOf(stack.alertDelivery.deadLetterQueue), maxReceiveCount: 3 },
    });
  });

  it("feeds the worker batches of 10 deliveries, reporting failures per message", () => {
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: queueArnOf(stack.alertDelivery.queue),
      FunctionName: { Ref: alertWorkerLogicalId() },
      BatchSize: 10,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
  });

  it("grants the worker exactly its table grants: read a destination, update only its delivery bookkeeping", () => {
    expectTableGrants(alertWorkerLogicalId(), alertDeliveryWorker);
  });

  it("lets the worker consume and re-send to its queue, dead-letter, and put events on the bus; nothing else", () => {
    // Act
    const queueStatements = statementsWithPrefix(alertWorkerLogicalId(), "sqs:");
    const eventStatements = statementsWithPrefix(alertWorkerLogicalId(), "events:");

    // Assess
    const actionsOn = (queue: IConstruct) =>
      [
        ...new Set(
          queueStatements
            // CDK merges statements of the same actions: one SendMessage statement may name both queues.
            .filter((statement) =>
              asArray(statement.Resource).some(
                (resource) => JSON.stringify(resource) === JSON.stringify(queueArnOf(queue)),
              ),
            )
            .flatMap((statement) => asArray(statement.Action)),
        ),
      ].sort();
    expect(actionsOn(stack.alertDelivery.queue)).toEqual([...QUEUE_CONSUME_ACTIONS, "sqs:SendMessage"].sort());
    expect(actionsOn(stack.alertDelivery.deadLetterQueue)).toEqual(["sqs:SendMessage"]);
    expect(new Set(actionsOf(queueStatements))).toEqual(new Set([...QUEUE_CONSUME_ACTIONS, "sqs:SendMessage"]));
    expect(eventStatements.map((statement) => [statement.Action, statement.Resource])).toEqual([
      ["events:PutEvents", busArn()],
    ]);
  });

  it("tells the worker its queues, the bus and the console's address, nothing else", () => {
    expect(alertWorkerEnvironment()).toEqual({
      TABLE_NAME: { Ref: tableLogicalId() },
      ALERT_DELIVERY_QUEUE_URL: { Ref: logicalIdOf(stack.alertDelivery.queue, CfnQueue) },
      ALERT_DELIVERY_DLQ_URL: { Ref: logicalIdOf(stack.alertDelivery.deadLetterQueue, CfnQueue) },
      SESSION_EVENTS_BUS: { Ref: logicalIdOf(stack.streamCounting.bus, CfnEventBus) },
      ATS_CONSOLE_URL: expect.objectContaining({ "Fn::Join": expect.any(Array) }),
    });
  });
});

describe("Table stream consumer", () => {
  /** The counting consumer's event source mapping of the table's stream (the export's marker has the other). */
  function streamMapping(): { Properties: Record<string, unknown> } | undefined {
    const mappings = template.findResources("AWS::Lambda::EventSourceMapping", {
      Properties: { EventSourceArn: tableStreamArn(), FunctionName: { Ref: consumerLogicalId() } },
    }) as Record<string, { Properties: Record<string, unknown> }>;
    expect(Object.keys(mappings)).toHaveLength(1);
    return Object.values(mappings)[0];
  }

  it("has two readers of the table's stream, DynamoDB's limit per shard: the counting consumer and the export's marker", () => {
    const mappings = template.findResources("AWS::Lambda::EventSourceMapping", {
      Properties: { EventSourceArn: tableStreamArn() },
    }) as Record<string, { Properties: { FunctionName: unknown } }>;
    expect(Object.values(mappings).map((mapping) => mapping.Properties.FunctionName)).toEqual(
      expect.arrayContaining([{ Ref: consumerLogicalId() }, { Ref: markerLogicalId() }]),
    );
    expect(Object.keys(mappings)).toHaveLength(2);
  });

  it("hands the export's marker every change of a session's or conversation's partition, and grants it only its own", () => {
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: tableStreamArn(),
      FunctionName: { Ref: markerLogicalId() },
      StartingPosition: "TRIM_HORIZON",
      BisectBatchOnFunctionError: true,
      MaximumBatchingWindowInSeconds: 10,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              dynamodb: { Keys: { PK: { S: [{ prefix: "SESSION#" }, { prefix: "CONVERSATION#" }] } } },
            }),
          },
        ],
      },
    });
    expectTableGrants(markerLogicalId(), exportChangeMarker);
    expect([...actionsOf(tableStatementsOf(markerLogicalId()))].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
    ]);
  });

  it("enables the table's stream with new and old images (counting compares both)", () => {
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      StreamSpecification: { StreamViewType: "NEW_AND_OLD_IMAGES" },
    });
  });

  it("has four event source mappings: the deletion queue's, the alert delivery queue's and the table stream's two", () => {
    template.resourceCountIs("AWS::Lambda::EventSourceMapping", 4);
    expect(streamMapping()?.Properties).toMatchObject({ FunctionName: { Ref: consumerLogicalId() } });
  });

  it("reads the stream from its oldest record, up to 10,000 records per batch gathered for 10 s, one batch per shard at a time", () => {
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: tableStreamArn(),
      FunctionName: { Ref: consumerLogicalId() },
      StartingPosition: "TRIM_HORIZON",
      BatchSize: 10_000,
      MaximumBatchingWindowInSeconds: 10,
      ParallelizationFactor: 1,
    });
  });

  it("has a tumbling window, so Lambda passes the shard id the per-shard high-water marks need", () => {
    // Act
    const window = streamMapping()?.Properties.TumblingWindowInSeconds;

    // Assess: Lambda's range is 0 (no window) to 900 seconds.
    expect(window).toBe(60);
    expect(window).toBeGreaterThan(0);
    expect(window).toBeLessThanOrEqual(900);
  });

  it("retries a failing batch in halves from its first failed record, 10 times, then sends it to the failure queue", () => {
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: tableStreamArn(),
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      DestinationConfig: { OnFailure: { Destination: queueArnOf(stack.streamCounting.failureQueue) } },
    });
  });

  it("invokes the consumer only for what counting counts: inserts of session partitions, replaced events, scores written again by a request, conversations' new scores, a session's move to a final status, and a TTL expiry of a session holding payloads (no other deletion, no counter update of its own)", () => {
    // Act
    const criteria = streamMapping()?.Properties.FilterCriteria as
      | { readonly Filters: readonly { readonly Pattern: string }[] }
      | undefined;
    const filters = criteria?.Filters ?? [];
    const patterns: unknown[] = filters.map((filter) => JSON.parse(filter.Pattern));

    // Assess
    const sessionPartition = { [PARTITION_KEY]: { S: [{ prefix: "SESSION#" }] } };
    const scorePartitions = { [PARTITION_KEY]: { S: [{ prefix: "SESSION#" }, { prefix: "CONVERSATION#" }] } };
    expect(patterns).toEqual([
      { eventName: ["INSERT"], dynamodb: { Keys: sessionPartition } },
      { eventName: ["MODIFY"], dynamodb: { Keys: sessionPartition, NewImage: { entity: { S: ["event"] } } } },
      {
        // A session's score written again, a conversation's own score new or written again (issue 33).
        eventName: ["INSERT", "MODIFY"],
        dynamodb: {
          Keys: scorePartitions,
          NewImage: { entity: { S: ["score"] }, countPending: { BOOL: [true] } },
        },
      },
      {
        eventName: ["MODIFY"],
        dynamodb: {
          Keys: sessionPartition,
          OldImage: { status: { S: ["active"] } },
          NewImage: { entity: { S: ["session"] }, status: { S: ["completed", "failed"] } },
        },
      },
      {
        eventName: ["REMOVE"],
        userIdentity: { type: ["Service"], principalId: ["dynamodb.amazonaws.com"] },
        dynamodb: { Keys: sessionPartition, OldImage: { entity: { S: ["session"] }, hasPayloads: { BOOL: [true] } } },
      },
    ]);
    expect(PARTITIONS.session).toBe("SESSION#*");
  });

  it("keeps failed batch descriptions 14 days, with no redrive of its own", () => {
    // Act
    const queue =
      resourcesOf<QueueResource>("AWS::SQS::Queue")[logicalIdOf(stack.streamCounting.failureQueue, CfnQueue)];

    // Assess
    expect(queue?.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 60 * 60, SqsManagedSseEnabled: true });
    expect(queue?.Properties).not.toHaveProperty("RedrivePolicy");
  });

  it("alarms when the consumer lags more than a minute behind the stream", () => {
    // Act
    const [alarm] = alarmsWithIdPrefix("StreamIteratorAge");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "IteratorAge",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: consumerLogicalId() } }],
      Statistic: "Maximum",
      Threshold: STREAM_ITERATOR_AGE_THRESHOLD_MS,
      ComparisonOperator: "GreaterThanThreshold",
    });
    // Above the tumbling window and a retry's backoff, well below the stream's 24-hour retention.
    expect(alarm?.Properties.Threshold).toBeGreaterThanOrEqual(60_000);
    expect(alarm?.Properties.Threshold).toBeLessThanOrEqual(15 * 60_000);
  });

  it("alarms on the first batch in the failure queue", () => {
    // Act
    const [alarm] = alarmsWithIdPrefix("StreamFailedBatches");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [
        {
          Name: "QueueName",
          Value: { "Fn::GetAtt": [logicalIdOf(stack.streamCounting.failureQueue, CfnQueue), "QueueName"] },
        },
      ],
      Statistic: "Maximum",
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("counts the consumer's errors and throttles in the Lambda alarms", () => {
    for (const idPrefix of ["LambdaErrors", "LambdaThrottles"]) {
      // Act
      const functionNames = alarmMetrics(alarmsWithIdPrefix(idPrefix)).map((metric) =>
        JSON.stringify(dimension(metric, "FunctionName")),
      );

      // Assess
      expect(
        functionNames.filter((name) => name === JSON.stringify({ Ref: consumerLogicalId() })),
        idPrefix,
      ).toHaveLength(1);
    }
  });

  it("creates the notifications bus and outputs its name", () => {
    // Prepare
    const busId = logicalIdOf(stack.streamCounting.bus, CfnEventBus);

    // Assess
    template.resourceCountIs("AWS::Events::EventBus", 1);
    template.hasOutput("SessionEventsBusName", { Value: { Ref: busId } });
  });

  it("lets the consumer and the alert senders, and no other function, put events on that bus only", () => {
    // Act
    const senders = [
      consumerLogicalId(),
      alertWorkerLogicalId(),
      ...routes
        .filter((route: RouteDefinition) => route.sendsAlertNotifications === true)
        .map((route) => logicalIdOf(handlerOf(route).function, CfnFunction)),
    ];
    const others = allFunctionIds().filter((functionId) => !senders.includes(functionId));

    // Assess
    for (const functionId of senders) {
      expect(statementsWithPrefix(functionId, "events:"), functionId).toEqual([
        { Effect: "Allow", Action: "events:PutEvents", Resource: busArn() },
      ]);
    }
    for (const functionId of others) expect(statementsWithPrefix(functionId, "events:"), functionId).toEqual([]);
  });

  it("gives the consumer the table name, the payload bucket and the bus name, nothing else", () => {
    // Act
    const fn = resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[consumerLogicalId()];

    // Assess
    expect(fn?.Properties.Environment.Variables).toEqual({
      TABLE_NAME: { Ref: tableLogicalId() },
      PAYLOAD_BUCKET: { Ref: bucketLogicalId() },
      SESSION_EVENTS_BUS: { Ref: logicalIdOf(stack.streamCounting.bus, CfnEventBus) },
    });
  });

  it("gives the consumer a 60-second timeout (a batch is a few dozen DynamoDB calls) and the service's 1024 MB", () => {
    // Act
    const fn = resourcesOf<FunctionResource>("AWS::Lambda::Function")[consumerLogicalId()];

    // Assess
    expect(fn?.Properties.Timeout).toBe(60);
    expect(fn?.Properties.MemorySize).toBe(1024);
  });

  it("grants the consumer its table grants: read sessions, count sessions and rollups, delete orphaned events", () => {
    // Prepare: what functions/store/counting/stream-counting.ts calls, per partition.
    const expected: readonly TableGrant[] = [
      // BatchGetItem of the batch's sessions, GetItem of a gone one and its tombstone; the Update of its counters;
      // BatchWriteItem deletes of orphaned events.
      {
        actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem"],
        partitions: ["SESSION#*"],
      },
      // The Updates of day rollups and agent summaries, each item once per batch.
      { actions: ["dynamodb:UpdateItem"], partitions: ["ROLLUP#*"] },
      // The score rollup items a batch's labels go to, read before the scores' counting transactions.
      { actions: ["dynamodb:BatchGetItem"], partitions: ["ROLLUP#*"] },
      // The monitors' filters (issue 34): which facets the alert series count, read once a minute per tenant.
      { actions: ["dynamodb:Query"], partitions: ["MONITORS"] },
      // A conversation's own scores, read and counted in their partition (issue 33).
      { actions: ["dynamodb:BatchGetItem", "dynamodb:UpdateItem"], partitions: ["CONVERSATION#ORG#*#ENV#*"] },
    ];

    // Act
    const actions = actionsOf(tableStatementsOf(consumerLogicalId()));

    // Assess
    expectTableGrants(consumerLogicalId(), streamConsumer);
    expectTableGrants(consumerLogicalId(), { tableGrants: expected });
    for (const action of ["dynamodb:Scan", "dynamodb:PutItem", "dynamodb:DeleteItem"])
      expect(actions).not.toContain(action);
    expect(JSON.stringify(tableStatementsOf(consumerLogicalId()))).not.toContain("/index/");
  });

  it("lets the consumer read this table's stream only: record reads on its ARN, ListStreams (no resource type) on *", () => {
    // Act
    const streamStatements = statementsWithPrefix(consumerLogicalId(), "dynamodb:").filter(isStreamStatement);

    // Assess
    expect(allowedTriples(streamStatements.map(normalisedStatement))).toEqual(
      allowedTriples([
        { effect: "Allow", actions: [...STREAM_READ_ACTIONS], resources: [tableStreamArn()], condition: undefined },
        { effect: "Allow", actions: ["dynamodb:ListStreams"], resources: ["*"], condition: undefined },
      ]),
    );
  });

  it("lets no other function read the stream", () => {
    for (const functionId of allFunctionIds().filter((id) => id !== consumerLogicalId() && id !== markerLogicalId())) {
      expect(
        statementsWithPrefix(functionId, "dynamodb:").filter((statement) =>
          asArray(statement.Action).some((action) => STREAM_ACTIONS.includes(action)),
        ),
        functionId,
      ).toEqual([]);
    }
  });

  it("lets the consumer send to the failure queue only (the mapping's on-failure destination uses its role)", () => {
    // Act
    const queueStatements = statementsWithPrefix(consumerLogicalId(), "sqs:");

    // Assess
    expect(actionsOf(queueStatements)).toEqual(["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"]);
    for (const statement of queueStatements) {
      expect(asArray(statement.Resource)).toEqual([queueArnOf(stack.streamCounting.failureQueue)]);
    }
  });

  it("logs the consumer to its own log group", () => {
    // Act
    const matches = template.findResources("AWS::Lambda::Function", {
      Properties: { LoggingConfig: { LogGroup: { Ref: logicalIdOf(stack.streamConsumer.logGroup, CfnLogGroup) } } },
    });

    // Assess
    expect(Object.keys(matches)).toEqual([consumerLogicalId()]);
  });

  it("explains why the failure queue has no dead-letter queue and why ListStreams is on *", () => {
    // Act
    const acknowledged = acknowledgementsIn(stack);
    const reasonAt = (path: string | undefined, id: string) =>
      acknowledged.filter((ack) => ack.path === path && ack.id === id).map((ack) => ack.reason);

    // Assess
    expect(reasonAt(stack.streamCounting.failureQueue.node.path, "AwsSolutions-SQS3")).toEqual([FAILURE_QUEUE_REASON]);
    expect(reasonAt(stack.streamConsumer.function.role?.node.path, "AwsSolutions-IAM5[Resource::*]")).toEqual([
      LIST_STREAMS_REASON,
    ]);
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
  it("is one user pool with one app client and one domain", () => {
    template.resourceCountIs("AWS::Cognito::UserPool", 1);
    template.resourceCountIs("AWS::Cognito::UserPoolClient", 1);
    template.resourceCountIs("AWS::Cognito::UserPoolDomain", 1);
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      UserPoolId: { Ref: logicalIdOf(stack.users.userPool, CfnUserPool) },
    });
  });
});

describe("Lambda bundles", () => {
  /** Each function's logical id with the text of the bundle its code asset holds. */
  function bundles(): { id: string; code: string }[] {
    const directory = app.synth().directory;
    const serviceFunctions = new Set(allFunctionIds());
    return Object.entries(resourcesOf<{ Properties: { Code: { S3Key?: unknown } } }>("AWS::Lambda::Function")).flatMap(
      ([id, resource]) => {
        const key = resource.Properties.Code.S3Key;
        if (typeof key !== "string" || !serviceFunctions.has(id)) return [];
        return [{ id, code: readFileSync(join(directory, `asset.${key.replace(/\.zip$/, "")}`, "index.mjs"), "utf8") }];
      },
    );
  }

  it("carry the model price table beside index.mjs as data (read on first use), not inside their JavaScript", () => {
    const directory = app.synth().directory;
    const serviceFunctions = new Set(allFunctionIds());
    const table = readFileSync(join(REPOSITORY_ROOT, "functions", "pricing", "model-prices.json"), "utf8");
    // A row of the table as esbuild would inline it (the provider key and a model name).
    const inlined = /"gpt-4o-mini":\{input:/;
    const assets = Object.entries(
      resourcesOf<{ Properties: { Code: { S3Key?: unknown } } }>("AWS::Lambda::Function"),
    ).flatMap(([id, resource]) => {
      const key = resource.Properties.Code.S3Key;
      return typeof key === "string" && serviceFunctions.has(id)
        ? [join(directory, `asset.${key.replace(/\.zip$/, "")}`)]
        : [];
    });

    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(readFileSync(join(asset, "model-prices.json"), "utf8")).toBe(table);
      expect(inlined.test(readFileSync(join(asset, "index.mjs"), "utf8"))).toBe(false);
    }
  });

  it("carry only the environment credential provider, not the SDK's default chain (SSO, STS, INI, IMDS)", () => {
    const built = bundles();

    // The route functions, the four workers, the export's change marker, the export and the cursor-secret setup.
    expect(built).toHaveLength(apiFunctions.length + 7);
    for (const { id, code } of built)
      expect({ id, ssoClient: /sso-oidc|SSOOIDC/.test(code) }).toEqual({ id, ssoClient: false });
  });

  it("carry the access-token verifier only where a route takes a signed-in user's token", () => {
    const built = bundles();
    const functionId = (id: string) => built.find((bundle) => bundle.id.startsWith(`${id}Function`));
    // aws-jwt-verify's own error text survives minification.
    const verifies = (code: string) => code.includes("JWT header does not have valid kid claim");

    for (const definition of apiFunctions) {
      const bundle = functionId(definition.id);
      const kinds = definition.routes.map((route) => route.auth.kind);
      expect({ fn: definition.id, bundle: bundle !== undefined }).toEqual({ fn: definition.id, bundle: true });
      if (kinds.every((kind) => kind === "apiKey" || kind === "feedbackToken"))
        expect({ fn: definition.id, verifier: verifies(bundle?.code ?? "") }).toEqual({
          fn: definition.id,
          verifier: false,
        });
      if (kinds.some((kind) => kind === "user" || kind === "apiKeyOrUser"))
        expect({ fn: definition.id, verifier: verifies(bundle?.code ?? "") }).toEqual({
          fn: definition.id,
          verifier: true,
        });
    }
  });

  it("leave the Cognito client to the runtime, imported on first use by the functions that add users", () => {
    const built = bundles();

    // The client's own code names its service target; the functions that call Cognito import it lazily.
    for (const { id, code } of built)
      expect({ id, cognitoClient: code.includes("AWSCognitoIdentityProviderService") }).toEqual({
        id,
        cognitoClient: false,
      });
    expect(
      built.filter(({ code }) => code.includes('import("@aws-sdk/client-cognito-identity-provider")')).length,
    ).toBeGreaterThan(0);
  });

  it("leave the S3 client to the runtime, imported on first use by the functions that touch payloads", () => {
    const built = bundles();
    const payloadFunctions = [...apiFunctions, deletionWorker, streamConsumer].filter(
      (definition) => "payloadAccess" in definition || "exportAccess" in definition,
    );
    // The export function's bundle (the lead's export run) may load the S3 client too: it is counted when it does.
    const exportLoadsS3 = built.some(
      ({ id, code }) => id === exportFunctionLogicalId() && code.includes('import("@aws-sdk/client-s3")'),
    );

    // The S3 client's own code (its endpoint rules name s3-object-lambda) is in no bundle…
    for (const { id, code } of built)
      expect({ id, s3Client: code.includes("s3-object-lambda") }).toEqual({ id, s3Client: false });
    // …and exactly the functions with payload access import it lazily.
    expect(built.filter(({ code }) => code.includes('import("@aws-sdk/client-s3")'))).toHaveLength(
      payloadFunctions.length + (exportLoadsS3 ? 1 : 0),
    );
  });
  it("leave the SDK's event-stream support to the runtime: no bundled client has an event-stream operation", () => {
    const built = bundles();
    const { external } = readBundleSettings();
    const packageJson = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const bundledClients = Object.keys(packageJson.dependencies).filter(
      (name) => name.startsWith("@aws-sdk/client-") && !external.includes(name),
    );

    // The event-stream codec's header names survive minification: in no bundle…
    for (const { id, code } of built)
      expect({ id, eventStreams: code.includes(":event-type") }).toEqual({ id, eventStreams: false });
    // …because no bundled client loads it at construction, as a client with event-stream operations does
    // (S3's, for SelectObjectContent): only the SDK's lazy import for such operations names it.
    expect(bundledClients).toEqual(expect.arrayContaining(["@aws-sdk/client-dynamodb", "@aws-sdk/client-eventbridge"]));
    const loadsEventStreams = (client: string) =>
      readFileSync(join(REPOSITORY_ROOT, "node_modules", client, "dist-es", "runtimeConfig.js"), "utf8").includes(
        "@smithy/core/event-streams",
      );
    for (const client of bundledClients)
      expect({ client, eventStreams: loadsEventStreams(client) }).toEqual({ client, eventStreams: false });
    expect(loadsEventStreams("@aws-sdk/client-s3")).toBe(true);
  });
});

describe("Payload bucket", () => {
  it("is one bucket (beside the console's), encrypted with S3-managed keys, with all public access blocked", () => {
    expect(payloadBucket()?.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
    });
    expect(payloadBucket()?.Properties).not.toHaveProperty("VersioningConfiguration");
    expect(payloadBucket()?.Properties).not.toHaveProperty("BucketName");
    // Beside the console's, the export's bucket and its Athena results bucket (issue 35, export-catalog.test.ts).
    expect(Object.keys(template.findResources("AWS::S3::Bucket")).sort()).toEqual(
      [
        bucketLogicalId(),
        consoleBucketLogicalId(),
        exportBucketLogicalId(),
        logicalIdOf(stack.exportCatalog.resultsBucket, CfnBucket),
      ].sort(),
    );
  });

  it("is retained when the stack is deleted or the bucket replaced", () => {
    expect(payloadBucket()).toMatchObject({ DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
  });

  it("expires objects under payloads/ only", () => {
    // Act
    const rules =
      (
        payloadBucket()?.Properties as
          | { LifecycleConfiguration: { Rules: readonly { Prefix?: string; Status: string }[] } }
          | undefined
      )?.LifecycleConfiguration.Rules ?? [];

    // Assess
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) expect(rule).toMatchObject({ Prefix: "payloads/", Status: "Enabled" });
  });

  it("denies every request not made over TLS 1.2 or later", () => {
    // Prepare
    const bucketAndObjects = [bucketArn(), { "Fn::Join": ["", [bucketArn(), "/*"]] }];

    // Assess: one policy per bucket (the payload bucket's, the console's, the export's and the Athena results').
    template.resourceCountIs("AWS::S3::BucketPolicy", 4);
    template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: bucketLogicalId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: "Deny",
            Principal: { AWS: "*" },
            Action: "s3:*",
            Resource: bucketAndObjects,
            Condition: { Bool: { "aws:SecureTransport": "false" } },
          },
          {
            Effect: "Deny",
            Principal: { AWS: "*" },
            Action: "s3:*",
            Resource: bucketAndObjects,
            Condition: { NumericLessThan: { "s3:TlsVersion": 1.2 } },
          },
        ]),
      },
    });
  });

  it("grants nothing in the bucket policy (access is by the functions' own role policies only)", () => {
    // Act
    const policy = Object.values(
      resourcesOf<{ Properties: { Bucket: unknown; PolicyDocument: { Statement: readonly { Effect: string }[] } } }>(
        "AWS::S3::BucketPolicy",
      ),
    ).find((candidate) => JSON.stringify(candidate.Properties.Bucket) === JSON.stringify({ Ref: bucketLogicalId() }));

    // Assess
    expect(policy?.Properties.PolicyDocument.Statement.map((statement) => statement.Effect)).toEqual(["Deny", "Deny"]);
  });

  it("outputs the bucket name", () => {
    template.hasOutput("PayloadBucketName", { Value: { Ref: bucketLogicalId() } });
    template.hasOutput("ExportBucketName", { Value: { Ref: exportBucketLogicalId() } });
    template.hasOutput("ExportGlueDatabase", { Value: "ats_export" });
    template.hasOutput("ExportAthenaWorkGroup", {
      Value: { Ref: stack.getLogicalId(stack.exportCatalog.workGroup) },
    });
    template.hasOutput("ExportFunctionName", { Value: { Ref: exportFunctionLogicalId() } });
  });
});

describe("Operations dashboard and alarms", () => {
  /** Alarm construct ids, as OperationsDashboard names them: one sum alarm per group of at most 10 metrics. */
  function expectedAlarmIds(): readonly string[] {
    const groups = (prefix: string, metricCount: number) =>
      Array.from({ length: Math.ceil(metricCount / MAX_METRICS_PER_ALARM) }, (_, index) => `${prefix}${index + 1}`);
    const functionCount = apiFunctions.length + 4;
    return [
      "ApiServerErrorRate",
      "ApiLatencyP99",
      ...groups("LambdaErrors", functionCount),
      ...groups("LambdaThrottles", functionCount),
      ...groups("DynamoDbThrottledRequests", SERVICE_TABLE_OPERATIONS.length),
      ...groups("DynamoDbThrottleEvents", 2 + 2 * GLOBAL_INDEXES.length),
      "DeadLetterMessages",
      "StreamIteratorAge",
      "StreamCountingFailures",
      "StreamFailedBatches",
    ];
  }

  it("has every alarm the construct defines for this stack (at least 8), and no other alarm", () => {
    // Act
    const ids = stack.operations.alarms.map((alarm) => alarm.node.id);
    const logicalIds = stack.operations.alarms.map((alarm) => logicalIdOf(alarm, CfnAlarm)).sort();

    // Assess
    expect(ids).toEqual(expectedAlarmIds());
    expect(ids.length).toBeGreaterThanOrEqual(8);
    expect(Object.keys(template.findResources("AWS::CloudWatch::Alarm")).sort()).toEqual(logicalIds);
  });

  it("notifies the alarm topic on ALARM and on OK, and treats missing data as not breaching", () => {
    // Prepare
    const topic = { Ref: logicalIdOf(stack.operations.alarmTopic, CfnTopic) };

    // Act
    const alarms = Object.values(resourcesOf<AlarmResource>("AWS::CloudWatch::Alarm"));

    // Assess
    expect(alarms.length).toBeGreaterThanOrEqual(8);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
      expect(alarm.Properties.TreatMissingData).toBe("notBreaching");
    }
  });

  it("alarms on the $default stage's 5xx rate and p99 latency", () => {
    // Prepare
    const stageDimensions = [
      { Name: "ApiId", Value: { Ref: logicalIdOf(stack.api, CfnApi) } },
      { Name: "Stage", Value: "$default" },
    ];

    // Act
    const [errorRate] = alarmsWithIdPrefix("ApiServerErrorRate");
    const [latency] = alarmsWithIdPrefix("ApiLatencyP99");

    // Assess
    expect(errorRate?.Properties.Threshold).toBe(SERVER_ERROR_RATE_PERCENT);
    expect(errorRate?.Properties.Metrics?.find((query) => query.Expression !== undefined)?.Expression).toContain(
      `requests >= ${MIN_REQUESTS_FOR_ERROR_RATE}`,
    );
    expect(
      alarmMetrics(errorRate === undefined ? [] : [errorRate]).map(({ MetricName, Namespace, Dimensions }) => ({
        MetricName,
        Namespace,
        Dimensions,
      })),
    ).toEqual([
      { MetricName: "Count", Namespace: "AWS/ApiGateway", Dimensions: stageDimensions },
      { MetricName: "5xx", Namespace: "AWS/ApiGateway", Dimensions: stageDimensions },
    ]);
    expect(latency?.Properties).toMatchObject({
      MetricName: "Latency",
      Namespace: "AWS/ApiGateway",
      ExtendedStatistic: "p99",
      Dimensions: stageDimensions,
      Threshold: LATENCY_P99_THRESHOLD_MS,
    });
  });

  for (const metricName of ["Errors", "Throttles"] as const) {
    it(`sums Lambda ${metricName} over every function of the stack, each exactly once`, () => {
      // Act
      const alarms = alarmsWithIdPrefix(`Lambda${metricName}`);
      const metrics = alarmMetrics(alarms);

      // Assess
      for (const alarm of alarms) {
        expect(alarmMetrics([alarm]).length).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
        expect(alarm.Properties.Threshold).toBe(0);
      }
      expect(new Set(metrics.map((metric) => `${metric.Namespace} ${metric.MetricName}`))).toEqual(
        new Set([`AWS/Lambda ${metricName}`]),
      );
      expect(metrics.map((metric) => JSON.stringify(dimension(metric, "FunctionName"))).sort()).toEqual(
        monitoredFunctionIds()
          .map((functionId) => JSON.stringify({ Ref: functionId }))
          .sort(),
      );
    });
  }

  it("sums the table's ThrottledRequests of every operation the service calls", () => {
    // Act
    const metrics = alarmMetrics(alarmsWithIdPrefix("DynamoDbThrottledRequests"));

    // Assess
    expect(metrics.map((metric) => dimension(metric, "Operation"))).toEqual([...SERVICE_TABLE_OPERATIONS]);
    for (const metric of metrics) {
      expect(metric).toMatchObject({ Namespace: "AWS/DynamoDB", MetricName: "ThrottledRequests" });
      expect(dimension(metric, "TableName")).toEqual({ Ref: tableLogicalId() });
    }
  });

  it("sums the read and write throttle events of the table and of each index", () => {
    // Prepare
    const expected = ["table", ...GLOBAL_INDEXES.map((index) => index.indexName)]
      .flatMap((target) => [`${target} ReadThrottleEvents`, `${target} WriteThrottleEvents`])
      .sort();

    // Act
    const metrics = alarmMetrics(alarmsWithIdPrefix("DynamoDbThrottleEvents"));

    // Assess
    for (const metric of metrics) {
      expect(metric.Namespace).toBe("AWS/DynamoDB");
      expect(dimension(metric, "TableName")).toEqual({ Ref: tableLogicalId() });
    }
    expect(
      metrics
        .map((metric) => `${String(dimension(metric, "GlobalSecondaryIndexName") ?? "table")} ${metric.MetricName}`)
        .sort(),
    ).toEqual(expected);
  });

  it("alarms on any visible message in the deletion dead-letter queue", () => {
    // Act
    const [alarm] = alarmsWithIdPrefix("DeadLetterMessages");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [
        {
          Name: "QueueName",
          Value: { "Fn::GetAtt": [logicalIdOf(stack.deletionQueue.deadLetterQueue, CfnQueue), "QueueName"] },
        },
      ],
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("sends notifications to one topic, encrypted with a rotated customer-managed key and TLS-only", () => {
    // Prepare
    const topicId = logicalIdOf(stack.operations.alarmTopic, CfnTopic);

    // Assess
    template.resourceCountIs("AWS::SNS::Topic", 1);
    template.resourceCountIs("AWS::KMS::Key", 1);
    const keyId = logicalIdOf(stack.operations.node.findChild("AlarmTopicKey"), CfnKey);
    template.hasResourceProperties("AWS::KMS::Key", { EnableKeyRotation: true });
    template.hasResourceProperties("AWS::SNS::Topic", { KmsMasterKeyId: { "Fn::GetAtt": [keyId, "Arn"] } });
    template.hasResourceProperties("AWS::SNS::TopicPolicy", {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Deny",
            Action: "sns:Publish",
            Condition: { Bool: { "aws:SecureTransport": "false" } },
          }),
          Match.objectLike({
            Effect: "Allow",
            Action: "sns:Publish",
            Principal: { Service: "cloudwatch.amazonaws.com" },
            Resource: { Ref: topicId },
          }),
        ]),
      },
    });
  });

  it("has one dashboard graphing the API, every function, the table, the dead-letter queue and the stream's failure queue", () => {
    // Act
    const dashboards = Object.values(
      resourcesOf<{ Properties: { DashboardName?: string; DashboardBody: unknown } }>("AWS::CloudWatch::Dashboard"),
    );
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);

    // Assess
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]?.Properties.DashboardName).toBeUndefined();
    expect(stack.operations.dashboard.node.scope).toBe(stack.operations);
    for (const ref of [logicalIdOf(stack.api, CfnApi), tableLogicalId(), ...monitoredFunctionIds()]) {
      expect(body).toContain(JSON.stringify({ Ref: ref }));
    }
    for (const queue of [stack.deletionQueue.deadLetterQueue, stack.streamCounting.failureQueue]) {
      expect(body).toContain(JSON.stringify({ "Fn::GetAtt": [logicalIdOf(queue, CfnQueue), "QueueName"] }));
    }
    expect(body).toContain("IteratorAge");
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
    const deploymentRole = stack.consoleDeployment.deployment.handlerRole;
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
      { path: stack.payloads.bucket.node.path, id: "AwsSolutions-S1" },
      // The export (issue 35): its bucket's and the Athena results bucket's access logs, and the object grants of
      // the export function and of the routes that read the export.
      { path: stack.exportBucket.bucket.node.path, id: "AwsSolutions-S1" },
      { path: stack.exportCatalog.resultsBucket.node.path, id: "AwsSolutions-S1" },
      ...[
        stack.exportJob.handler.function.role?.node.path,
        ...apiFunctions
          .filter((definition) => definition.exportAccess !== undefined)
          .map((definition) => functionOf(definition).function.role?.node.path),
      ].flatMap((path) => exportObjectsFindings().map((id) => ({ path, id }))),
      // On the execution role (whose default policy holds the grant) of each function with payload access.
      ...definedFunctions()
        .filter(({ payloadAccess }) => payloadAccess !== undefined)
        .map(({ rolePath }) => ({ path: rolePath, id: payloadObjectsFinding() })),
      // The console: its bucket's access log, the distribution's CloudFront rules, and the deployment handler (aws-cdk-lib's).
      { path: stack.consoleSite.bucket.node.path, id: "AwsSolutions-S1" },
      ...Object.keys(DISTRIBUTION_REASONS).map((id) => ({ path: stack.consoleSite.distribution.node.path, id })),
      ...consoleDeploymentFindingIds().map((id) => ({ path: deploymentRole.node.path, id })),
      { path: deploymentRole.node.scope?.node.path, id: "AwsSolutions-L1" },
      // The stream consumer: ListStreams on `*` (no resource type), and its failure queue (a DLQ itself).
      { path: stack.streamConsumer.function.role?.node.path, id: "AwsSolutions-IAM5[Resource::*]" },
      { path: stack.streamCounting.failureQueue.node.path, id: "AwsSolutions-SQS3" },
      // The export's change marker, the stream's other reader: ListStreams on `*` as well.
      { path: stack.exportChangeMarker.function.role?.node.path, id: "AwsSolutions-IAM5[Resource::*]" },
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

  it("explains why the payload bucket has no access log and why payload grants end in payloads/*", () => {
    // Act
    const acknowledged = acknowledgementsIn(stack);
    const reasonsOf = (id: string) => acknowledged.filter((ack) => ack.id === id).map((ack) => ack.reason);

    // Assess
    expect(reasonsOf("AwsSolutions-S1")).toContain(ACCESS_LOGS_REASON);
    expect(reasonsOf("AwsSolutions-S1")).toContain(EXPORT_ACCESS_LOGS_REASON);
    expect(reasonsOf("AwsSolutions-S1")).toContain(RESULTS_ACCESS_LOGS_REASON);
    for (const id of exportObjectsFindings()) {
      expect(new Set(reasonsOf(id))).toEqual(new Set([EXPORT_OBJECT_WILDCARD_REASON]));
    }
    const wildcardReasons = reasonsOf(payloadObjectsFinding());
    expect(wildcardReasons.length).toBeGreaterThan(0);
    expect(new Set(wildcardReasons)).toEqual(new Set([OBJECT_WILDCARD_REASON]));
  });

  it("acknowledge no IAM5 finding other than the payloads/* objects, the consumer's ListStreams and the console deployment handler's own", () => {
    // Prepare
    const deploymentRolePath = stack.consoleDeployment.deployment.handlerRole.node.path;
    const consumerRolePath = stack.streamConsumer.function.role?.node.path;
    const markerRolePath = stack.exportChangeMarker.function.role?.node.path;

    // Act
    const iam5 = acknowledgementsIn(stack).filter(
      (ack) =>
        ack.id.startsWith("AwsSolutions-IAM5") &&
        ack.id !== payloadObjectsFinding() &&
        !exportObjectsFindings().includes(ack.id),
    );
    const others = iam5.filter((ack) => ack.path !== consumerRolePath && ack.path !== markerRolePath);

    // Assess
    expect(iam5.filter((ack) => ack.path === consumerRolePath)).toEqual([
      { path: consumerRolePath, id: "AwsSolutions-IAM5[Resource::*]", reason: LIST_STREAMS_REASON },
    ]);
    expect(iam5.filter((ack) => ack.path === markerRolePath)).toEqual([
      { path: markerRolePath, id: "AwsSolutions-IAM5[Resource::*]", reason: LIST_STREAMS_REASON },
    ]);
    expect(others.map((ack) => ack.path)).toEqual(others.map(() => deploymentRolePath));
    expect(others.map((ack) => ack.id).sort()).toEqual(
      consoleDeploymentFindingIds()
        .filter((id) => id.startsWith("AwsSolutions-IAM5"))
        .sort(),
    );
  });

  it("explain the console deployment handler's findings (aws-cdk-lib's BucketDeployment)", () => {
    // Act
    const reasons = new Map(
      acknowledgementsIn(stack)
        .filter((ack) => ack.path.includes("CDKBucketDeployment"))
        .map((ack) => [ack.id, ack.reason]),
    );

    // Assess
    for (const id of consoleDeploymentFindingIds()) {
      expect(reasons.get(id), id).toBe(
        id.startsWith("AwsSolutions-IAM4") ? DEPLOYMENT_MANAGED_POLICY_REASON : DEPLOYMENT_WILDCARD_REASON,
      );
    }
    expect(reasons.get("AwsSolutions-L1")).toBe(DEPLOYMENT_RUNTIME_REASON);
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
      const expected = {
        apiKey: /API key/,
        user: /aws-jwt-verify/,
        apiKeyOrUser: /API key.*aws-jwt-verify/,
        signedIn: /aws-jwt-verify/,
        feedbackToken: /feedback token.*HMAC-SHA256/,
        public: /OpenAPI/,
      } as const;
      expect(reasons).toEqual([expect.stringMatching(expected[route.auth.kind])]);
    });
  }
});

describe("User directory access", () => {
  it("lets only the routes that create users call Cognito, with AdminCreateUser and AdminGetUser on the pool", () => {
    for (const route of routes) {
      // Act
      const definition: RouteDefinition = route;
      const statements = statementsWithPrefix(logicalIdOf(handlerOf(route).function, CfnFunction), "cognito-idp:");

      // Assess
      if (definition.createsUsers === true) {
        expect(statements, route.id).toHaveLength(1);
        expect(actionsOf(statements)).toEqual(["cognito-idp:AdminCreateUser", "cognito-idp:AdminGetUser"]);
        expect(statements[0]?.Resource).toEqual({
          "Fn::GetAtt": [logicalIdOf(stack.users.userPool, CfnUserPool), "Arn"],
        });
      } else {
        expect(statements, route.id).toEqual([]);
      }
    }
    expect(routes.filter((route: RouteDefinition) => route.createsUsers === true).map((route) => route.id)).toEqual([
      "CreateInvitation",
    ]);
  });
});

describe("Table access by partition (dynamodb:LeadingKeys)", () => {
  it("limits every DynamoDB table statement of every function to listed partitions, never a wildcard-first pattern", () => {
    // Act: the stream consumer's statements on the stream are checked in "Table stream consumer".
    const statements = allFunctionIds().flatMap((functionId) => tableStatementsOf(functionId));

    // Assess
    expect(statements.length).toBeGreaterThan(routes.length);
    for (const statement of statements) {
      const patterns = asArray(
        statement.Condition?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"] as string | readonly string[],
      );
      expect(patterns.length).toBeGreaterThan(0);
      for (const pattern of patterns) expect(pattern).toMatch(/^[A-Z]/);
      expect(statement.Condition?.Null).toEqual({ "dynamodb:LeadingKeys": "false" });
    }
  });

  it("lets API-key functions only read credential items, and stamp nothing on key records but lastUsedAt", () => {
    for (const route of routes.filter((candidate) => candidate.auth.kind === "apiKey")) {
      // Act
      const statements = statementsWithPrefix(logicalIdOf(handlerOf(route).function, CfnFunction), "dynamodb:");
      const onCredentials = statements.filter((statement) =>
        JSON.stringify(statement.Condition).includes(`"${PARTITIONS.apiKeyCredential}"`),
      );
      const organisationWrites = statements.filter(
        (statement) =>
          JSON.stringify(statement.Condition).includes(`"${PARTITIONS.organisation}"`) &&
          asArray(statement.Action).some((action) => action !== "dynamodb:GetItem"),
      );

      // Assess
      expect(actionsOf(onCredentials), route.id).toEqual(["dynamodb:GetItem"]);
      expect(organisationWrites, route.id).toHaveLength(1);
      expect(asArray(organisationWrites[0]?.Action)).toEqual(["dynamodb:UpdateItem"]);
      expect(organisationWrites[0]?.Condition?.["ForAllValues:StringEquals"]).toEqual({
        "dynamodb:Attributes": ["PK", "SK", "lastUsedAt"],
      });
    }
  });

  it("lets no function serving requests write the cursor-signing secret; the read routes that page and the feedback-token routes (their key is derived from it) may read it", () => {
    // Prepare
    const paging = new Set([
      "ListSessions",
      "ListEvents",
      "ListScores",
      "ListConversations",
      "GetConversation",
      "ListConversationScores",
      "CreateFeedbackToken",
      "PostFeedback",
      "ListMonitorHistory",
      "ListAlertAudit",
      "ListExports",
      "QueryMetrics",
    ]);

    for (const definition of apiFunctions) {
      // Act
      const statements = statementsWithPrefix(logicalIdOf(functionOf(definition).function, CfnFunction), "dynamodb:");
      const writes = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"];

      // Assess
      for (const action of writes)
        expect(
          statements.some((st) => allowsOnPrefix(st, action, "SERVICE")),
          definition.id,
        ).toBe(false);
      // A function group's function reads it when one of its routes does.
      expect(
        statements.some((st) => allowsOnPrefix(st, "dynamodb:GetItem", "SERVICE")),
        definition.id,
      ).toBe(definition.routes.some((route) => paging.has(route.id)));
    }
  });

  it("lets no route touch the pending-deletions list but DeleteUserData (which adds to it)", () => {
    for (const route of routes) {
      // Act
      const statements = statementsWithPrefix(logicalIdOf(handlerOf(route).function, CfnFunction), "dynamodb:");
      const pending = statements.filter((statement) =>
        JSON.stringify(statement.Condition).includes("DELETIONS#PENDING"),
      );

      // Assess
      expect(actionsOf(pending), route.id).toEqual(route.id === "DeleteUserData" ? ["dynamodb:PutItem"] : []);
    }
  });
});

describe("Cursor-signing secret", () => {
  it("is created at deployment by a custom resource with the table's name, before the stage goes live", () => {
    // Prepare
    const resourceId = stack.getLogicalId(stack.cursorSecret.node.defaultChild as CfnElement);
    const stages = resourcesOf<StageResource>("AWS::ApiGatewayV2::Stage");

    // Assess
    template.hasResource("Custom::CursorSecret", {
      Properties: {
        ServiceToken: { "Fn::GetAtt": [cursorSecretFunctionId(), "Arn"] },
        TableName: { Ref: tableLogicalId() },
      },
    });
    for (const stage of Object.values(stages)) expect(stage.DependsOn).toContain(resourceId);
  });

  it("is written by a function that may only PutItem the SERVICE partition", () => {
    // Assess
    expectTableGrants(cursorSecretFunctionId(), cursorSecretSetup);
    expect(cursorSecretSetup.tableGrants).toEqual([{ actions: ["dynamodb:PutItem"], partitions: ["SERVICE"] }]);
    expect(
      policyStatementsOf(cursorSecretFunctionId()).filter((st) => !asArray(st.Action)[0]?.startsWith("logs:")),
    ).toHaveLength(1);
  });
});

describe("Edge protection off (the default deployment)", () => {
  it("creates no web ACL, origin secret or authorizer", () => {
    template.resourceCountIs("Custom::EdgeWebAcl", 0);
    template.resourceCountIs("Custom::OriginSecret", 0);
    template.resourceCountIs("AWS::ApiGatewayV2::Authorizer", 0);
    expect(stack.edge).toBeUndefined();
  });

  it("leaves every route to authenticate in its function, with no API Gateway authorizer", () => {
    for (const route of Object.values(template.findResources("AWS::ApiGatewayV2::Route"))) {
      expect(route.Properties.AuthorizationType ?? "NONE").toBe("NONE");
    }
  });

  it("serves the distribution without a web ACL or origin header, over IPv4 and IPv6, the API at its own URL", () => {
    const [distribution] = Object.values(template.findResources("AWS::CloudFront::Distribution"));
    const config = distribution?.Properties.DistributionConfig;

    expect(config).not.toHaveProperty("WebACLId");
    expect(config.IPV6Enabled).toBe(true);
    for (const origin of config.Origins) expect(origin).not.toHaveProperty("OriginCustomHeaders");
    template.hasOutput("ApiUrl", {
      Value: { "Fn::Join": ["", Match.arrayWith([{ Ref: logicalIdOf(stack.api, CfnApi) }, ".execute-api."])] },
    });
  });
});

describe("Per-route throttles", () => {
  it("sets every route's own throttle from the route table as the stage's route settings", () => {
    // Act
    const [stage] = Object.values(resourcesOf<StageResource>("AWS::ApiGatewayV2::Stage"));

    // Assess
    expect(stage?.Properties.RouteSettings).toEqual(
      Object.fromEntries(
        routes.map((route) => [
          `${route.method} ${route.path}`,
          { ThrottlingRateLimit: route.throttle.rateLimit, ThrottlingBurstLimit: route.throttle.burstLimit },
        ]),
      ),
    );
  });

  it("creates the stage after every route its settings name", () => {
    // Prepare
    const routeIds = Object.keys(resourcesOf<RouteResource>("AWS::ApiGatewayV2::Route"));

    // Act
    const [stage] = Object.values(resourcesOf<StageResource>("AWS::ApiGatewayV2::Stage"));

    // Assess
    for (const routeId of routeIds) expect(stage?.DependsOn).toContain(routeId);
  });

  /** API Gateway's default regional quota, shared by every API of the account (steady requests per second). */
  const ACCOUNT_REGIONAL_QUOTA_RPS = 10_000;
  /**
   * How many client addresses, each at its default per-address limit of edge protection, it takes to fill a
   * route's bucket: requests that fail authentication must not spend the budget of those that pass, so no
   * single source (nor a handful) may empty a bucket the console and every organisation share.
   */
  const MIN_SOURCES_TO_FILL = { management: 50, read: 25, all: 5 } as const;

  /** The stage's route settings in the template. */
  function routeSettings() {
    const [stage] = Object.values(resourcesOf<StageResource>("AWS::ApiGatewayV2::Stage"));
    return stage?.Properties.RouteSettings ?? {};
  }

  for (const route of routes) {
    const kind = edgeLimitOf(route.throttle) ?? "all";
    const perAddressRps = DEFAULT_EDGE_LIMITS[kind] / 60;
    const minimum = MIN_SOURCES_TO_FILL[kind] * perAddressRps;
    it(`sizes ${route.method} ${route.path}'s bucket so that ${MIN_SOURCES_TO_FILL[kind]} addresses at the ${kind} limit (${perAddressRps} rps each) are needed to fill it (≥ ${minimum} rps)`, () => {
      const setting = routeSettings()[`${route.method} ${route.path}`];

      expect(setting?.ThrottlingRateLimit).toBeGreaterThanOrEqual(minimum);
      expect(setting?.ThrottlingBurstLimit).toBeGreaterThanOrEqual(2 * (setting?.ThrottlingRateLimit ?? 0));
    });
  }

  it("gives every route its own bucket of at most a tenth of the account's regional quota, so a flood on one route leaves the account's other APIs theirs", () => {
    const settings = Object.values(routeSettings());

    expect(Object.keys(routeSettings())).toHaveLength(routes.length);
    for (const setting of settings)
      expect(setting.ThrottlingRateLimit).toBeLessThanOrEqual(ACCOUNT_REGIONAL_QUOTA_RPS / 10);
  });

  it("throttles ingestion highest and key management, erasure and the public document lowest", () => {
    // Prepare
    const rate = (id: string) => routes.find((route) => route.id === id)?.throttle.rateLimit ?? 0;

    // Assess
    for (const route of routes) {
      expect(route.throttle.burstLimit).toBeGreaterThanOrEqual(route.throttle.rateLimit);
      expect(route.throttle.rateLimit).toBeLessThanOrEqual(rate("CreateEvent"));
    }
    for (const id of ["CreateApiKey", "DeleteUserData", "OpenApiDocument"]) {
      expect(rate(id)).toBeLessThan(rate("ListSessions"));
    }
  });
});

describe("Monitor evaluation (issue 34)", () => {
  it("runs the evaluator from an EventBridge rule every minute, without retries of a missed minute", () => {
    const rules = template.findResources("AWS::Events::Rule");
    // The evaluator's and the export's (issue 35).
    expect(Object.keys(rules)).toHaveLength(2);
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(1 minute)",
      State: "ENABLED",
      Targets: [
        {
          Arn: { "Fn::GetAtt": [evaluatorLogicalId(), "Arn"] },
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        },
      ],
    });
  });

  it("lets only that rule invoke the evaluator", () => {
    const permissions = Object.values(
      template.findResources("AWS::Lambda::Permission", {
        Properties: { FunctionName: { "Fn::GetAtt": [evaluatorLogicalId(), "Arn"] } },
      }),
    ) as { Properties: Record<string, unknown> }[];
    expect(permissions).toHaveLength(1);
    const rule = Object.keys(template.findResources("AWS::Events::Rule"))[0];
    expect(permissions[0]?.Properties).toMatchObject({
      Action: "lambda:InvokeFunction",
      Principal: "events.amazonaws.com",
      SourceArn: { "Fn::GetAtt": [rule, "Arn"] },
    });
  });

  it("grants the evaluator exactly its table grants (monitors, their history, the series)", () => {
    expectTableGrants(evaluatorLogicalId(), monitorEvaluator);
  });

  it("lets the evaluator send to the alert delivery queue only, and tells it the queue", () => {
    expect(statementsWithPrefix(evaluatorLogicalId(), "sqs:")).toEqual([
      { Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArnOf(stack.alertDelivery.queue) },
    ]);
    const variables =
      resourcesOf<FunctionEnvironmentResource>("AWS::Lambda::Function")[evaluatorLogicalId()]?.Properties.Environment
        .Variables;
    expect(variables).toEqual({
      TABLE_NAME: { Ref: tableLogicalId() },
      ALERT_DELIVERY_QUEUE_URL: { Ref: logicalIdOf(stack.alertDelivery.queue, CfnQueue) },
    });
  });

  it("gives the evaluator a minute: its run stops at its 45-second budget before the next one starts", () => {
    template.hasResourceProperties("AWS::Lambda::Function", {
      Timeout: 60,
      Environment: { Variables: { TABLE_NAME: Match.anyValue() } },
      LoggingConfig: { LogGroup: { Ref: logicalIdOf(stack.monitorEvaluator.logGroup, CfnLogGroup) } },
    });
  });
});
