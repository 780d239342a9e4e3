import { App, Stack } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { HttpApi, HttpStage } from "aws-cdk-lib/aws-apigatewayv2";
import { AttributeType, BillingMode, Table } from "aws-cdk-lib/aws-dynamodb";
import { CfnFunction, Code, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { beforeAll, describe, expect, it } from "vitest";
import { DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE_NAME } from "../../functions/observability/metric-names.js";
import {
  LATENCY_P99_THRESHOLD_MS,
  MAX_METRICS_PER_ALARM,
  MIN_REQUESTS_FOR_ERROR_RATE,
  OperationsDashboard,
  SERVER_ERROR_RATE_PERCENT,
  STREAM_FAILURE_PERIODS,
  STREAM_ITERATOR_AGE_THRESHOLD_MS,
} from "../../lib/constructs/operations-dashboard.js";
import { awsSolutionsFindings } from "./nag-findings.js";

interface MetricDataQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly ReturnData?: boolean;
  readonly MetricStat?: {
    readonly Metric: {
      readonly MetricName: string;
      readonly Namespace: string;
      readonly Dimensions?: readonly { readonly Name: string; readonly Value: unknown }[];
    };
    readonly Stat: string;
    readonly Period: number;
  };
}
interface AlarmResource {
  readonly Properties: {
    readonly AlarmDescription: string;
    readonly ComparisonOperator: string;
    readonly Threshold: number;
    readonly EvaluationPeriods: number;
    readonly DatapointsToAlarm?: number;
    readonly TreatMissingData?: string;
    readonly MetricName?: string;
    readonly Namespace?: string;
    readonly ExtendedStatistic?: string;
    readonly Statistic?: string;
    readonly Period?: number;
    readonly Metrics?: readonly MetricDataQuery[];
    readonly AlarmActions: readonly unknown[];
    readonly OKActions: readonly unknown[];
  };
}

/**
 * Two tiny inline functions (no bundling), a table with two indexes, an HTTP API stage, a DLQ; with
 * `withStream`, the first function as the stream consumer with its failure queue.
 */
function prepare(options: { functionCount?: number; withQueue?: boolean; topic?: boolean; withStream?: boolean } = {}) {
  const stack = new Stack(new App(), "Ops");
  const table = new Table(stack, "Table", {
    partitionKey: { name: "PK", type: AttributeType.STRING },
    sortKey: { name: "SK", type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
  });
  const api = new HttpApi(stack, "Api", { createDefaultStage: false });
  const stage = new HttpStage(stack, "Stage", { httpApi: api, autoDeploy: true });
  const functions = Array.from(
    { length: options.functionCount ?? 2 },
    (_, index) =>
      new LambdaFunction(stack, `Fn${index}`, {
        runtime: Runtime.NODEJS_24_X,
        handler: "index.handler",
        code: Code.fromInline("export const handler = async () => ({ statusCode: 204 });"),
      }),
  );
  const deadLetterQueue =
    options.withQueue === false
      ? undefined
      : new Queue(stack, "Dlq", { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
  const alarmTopic = options.topic === true ? new Topic(stack, "GivenTopic", { enforceSSL: true }) : undefined;
  const consumer = functions[0];
  const streamConsumer =
    options.withStream === true && consumer !== undefined
      ? {
          function: consumer,
          failureQueue: new Queue(stack, "FailureQueue", { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true }),
        }
      : undefined;
  const ops = new OperationsDashboard(stack, "Operations", {
    stage,
    table,
    indexNames: ["GSI1", "GSI2"],
    functions,
    ...(deadLetterQueue !== undefined ? { deadLetterQueue } : {}),
    ...(alarmTopic !== undefined ? { alarmTopic } : {}),
    ...(streamConsumer !== undefined ? { streamConsumer } : {}),
  });
  return { stack, ops, template: Template.fromStack(stack) };
}

/** The CloudFormation function of the `index`-th inline function of a prepared stack. */
function fnResource(prepared: ReturnType<typeof prepare>, index: number): CfnFunction {
  const fn = prepared.stack.node.findChild(`Fn${index}`).node.defaultChild;
  if (!(fn instanceof CfnFunction)) throw new Error(`Fn${index} has no CfnFunction`);
  return fn;
}

function alarmsOf(template: Template): Record<string, AlarmResource> {
  return template.findResources("AWS::CloudWatch::Alarm") as Record<string, AlarmResource>;
}

function alarmNamed(template: Template, idPrefix: string): AlarmResource[] {
  return Object.entries(alarmsOf(template))
    .filter(([logicalId]) => logicalId.startsWith(`Operations${idPrefix}`))
    .map(([, alarm]) => alarm);
}

/** Metric names read by a metric-math alarm. */
function metricNames(alarm: AlarmResource | undefined): string[] {
  return (alarm?.Properties.Metrics ?? []).flatMap((query) =>
    query.MetricStat ? [query.MetricStat.Metric.MetricName] : [],
  );
}

function returnedExpression(alarm: AlarmResource | undefined): string | undefined {
  return alarm?.Properties.Metrics?.find((query) => query.ReturnData !== false && query.Expression)?.Expression;
}

let built: ReturnType<typeof prepare>;
beforeAll(() => {
  built = prepare();
});

describe("OperationsDashboard alarms", () => {
  it("alarms on the API's 5xx rate above 1% of at least the minimum number of requests", () => {
    // Act
    const [alarm] = alarmNamed(built.template, "ApiServerErrorRate");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Threshold: SERVER_ERROR_RATE_PERCENT,
      ComparisonOperator: "GreaterThanThreshold",
      EvaluationPeriods: 1,
      TreatMissingData: "notBreaching",
    });
    expect(returnedExpression(alarm)).toBe(
      `IF(requests >= ${MIN_REQUESTS_FOR_ERROR_RATE}, 100 * FILL(errors, 0) / requests, 0)`,
    );
    const queries = alarm?.Properties.Metrics ?? [];
    expect(queries.find((query) => query.Id === "requests")?.MetricStat).toMatchObject({
      Metric: {
        Namespace: "AWS/ApiGateway",
        MetricName: "Count",
        Dimensions: [expect.objectContaining({ Name: "ApiId" }), { Name: "Stage", Value: "$default" }],
      },
      Stat: "Sum",
      Period: 300,
    });
    expect(queries.find((query) => query.Id === "errors")?.MetricStat).toMatchObject({
      Metric: { Namespace: "AWS/ApiGateway", MetricName: "5xx" },
      Stat: "Sum",
      Period: 300,
    });
  });

  it("alarms on the API's p99 latency above 1000 ms for three 5-minute periods", () => {
    // Act
    const [alarm] = alarmNamed(built.template, "ApiLatencyP99");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/ApiGateway",
      MetricName: "Latency",
      ExtendedStatistic: "p99",
      Period: 300,
      Threshold: LATENCY_P99_THRESHOLD_MS,
      ComparisonOperator: "GreaterThanThreshold",
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  it.each([
    ["LambdaErrors", "Errors"],
    ["LambdaThrottles", "Throttles"],
  ])("sums %s of every function with metric math, alarming above 0", (idPrefix, metricName) => {
    // Act
    const alarms = alarmNamed(built.template, idPrefix);

    // Assess
    expect(alarms).toHaveLength(1);
    const [alarm] = alarms;
    expect(alarm?.Properties).toMatchObject({ Threshold: 0, ComparisonOperator: "GreaterThanThreshold" });
    expect(metricNames(alarm)).toEqual([metricName, metricName]);
    expect(returnedExpression(alarm)).toBe("SUM(FILL([m0, m1], 0))");
    expect(alarm?.Properties.AlarmDescription).toContain("Fn0, Fn1");
  });

  it("alarms on the table's ThrottledRequests per operation and its read/write throttle events, above 0", () => {
    // Act
    const throttled = alarmNamed(built.template, "DynamoDbThrottledRequests");
    const events = alarmNamed(built.template, "DynamoDbThrottleEvents");

    // Assess
    expect(throttled).toHaveLength(1);
    expect(metricNames(throttled[0])).toEqual(Array(8).fill("ThrottledRequests"));
    expect(throttled[0]?.Properties).toMatchObject({ Threshold: 0, ComparisonOperator: "GreaterThanThreshold" });
    // Table reads + writes and both kinds for each of the two indexes.
    expect(events).toHaveLength(1);
    expect(metricNames(events[0]).sort()).toEqual([
      ...Array(3).fill("ReadThrottleEvents"),
      ...Array(3).fill("WriteThrottleEvents"),
    ]);
    const indexDimensions = (events[0]?.Properties.Metrics ?? []).flatMap(
      (query) =>
        query.MetricStat?.Metric.Dimensions?.filter((dimension) => dimension.Name === "GlobalSecondaryIndexName") ?? [],
    );
    expect(indexDimensions.map((dimension) => dimension.Value)).toEqual(["GSI1", "GSI1", "GSI2", "GSI2"]);
    for (const query of [...(throttled[0]?.Properties.Metrics ?? []), ...(events[0]?.Properties.Metrics ?? [])]) {
      if (query.MetricStat)
        expect(query.MetricStat).toMatchObject({ Metric: { Namespace: "AWS/DynamoDB" }, Stat: "Sum" });
    }
  });

  it("alarms on any visible message in the dead-letter queue", () => {
    // Act
    const [alarm] = alarmNamed(built.template, "DeadLetterMessages");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Statistic: "Maximum",
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("sends every alarm's ALARM and OK notifications to its encrypted, TLS-only topic", () => {
    // Act
    const [topicId] = Object.keys(built.template.findResources("AWS::SNS::Topic"));
    const alarms = Object.values(alarmsOf(built.template));

    // Assess
    expect(alarms).toHaveLength(7);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
    }
    built.template.hasResourceProperties("AWS::SNS::Topic", { KmsMasterKeyId: Match.anyValue() });
    built.template.hasResourceProperties("AWS::KMS::Key", { EnableKeyRotation: true });
    built.template.hasResourceProperties("AWS::SNS::TopicPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
          Match.objectLike({
            Effect: "Allow",
            Principal: { Service: "cloudwatch.amazonaws.com" },
            Action: "sns:Publish",
          }),
        ]),
      },
    });
  });

  it("splits the function alarms at ten metrics each (CloudWatch's metric-math alarm limit)", () => {
    // Prepare
    const { template } = prepare({ functionCount: 12, withQueue: false });

    // Act
    const errors = alarmNamed(template, "LambdaErrors");

    // Assess
    expect(errors.map((alarm) => metricNames(alarm).length)).toEqual([MAX_METRICS_PER_ALARM, 2]);
    expect(alarmNamed(template, "DeadLetterMessages")).toEqual([]);
  });

  it("uses a given topic instead of creating one", () => {
    // Prepare
    const { template, ops } = prepare({ topic: true });

    // Assess
    template.resourceCountIs("AWS::SNS::Topic", 1);
    template.resourceCountIs("AWS::KMS::Key", 0);
    expect(ops.alarmTopic.node.id).toBe("GivenTopic");
  });
});

describe("OperationsDashboard dashboard", () => {
  it("creates one dashboard with the API, Lambda, DynamoDB, DLQ, EMF and alarm widgets", () => {
    // Act
    const dashboards = Object.values(
      built.template.findResources("AWS::CloudWatch::Dashboard") as Record<
        string,
        { Properties: { DashboardName?: string; DashboardBody: unknown } }
      >,
    );

    // Assess
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]?.Properties.DashboardName).toBeUndefined();
    const body = JSON.stringify(built.stack.resolve(dashboards[0]?.Properties.DashboardBody));
    for (const title of [
      "API requests",
      "API errors (4xx / 5xx)",
      "API latency (ms)",
      "Lambda errors",
      "Lambda throttles",
      "Lambda duration p99 (ms)",
      "DynamoDB consumed capacity",
      "DynamoDB throttles",
      "Deletion dead-letter queue",
      "Requests by route (EMF)",
      "Rejected requests by route and status (EMF)",
      "Ingested events by route (EMF)",
      "Latency p99 by route (EMF, ms)",
      "Alarms",
    ]) {
      expect(body).toContain(`"title\\":\\"${title}\\"`);
    }
    expect(body).toContain(
      `SEARCH('{AgentTracking,route,service,status} MetricName=\\\\\\"Rejected\\\\\\" service=\\\\\\"agent-tracking\\\\\\"', 'Sum', 300)`,
    );
    expect(body).toContain("IngestedEvents");
    expect(body).toContain("ConsumedWriteCapacityUnits");
  });
});

describe("OperationsDashboard stream consumer", () => {
  let withStream: ReturnType<typeof prepare>;
  beforeAll(() => {
    withStream = prepare({ withStream: true });
  });

  it("alarms when the consumer lags more than a minute behind the stream (maximum IteratorAge)", () => {
    // Act
    const [alarm] = alarmNamed(withStream.template, "StreamIteratorAge");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "IteratorAge",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: withStream.stack.getLogicalId(fnResource(withStream, 0)) } }],
      Statistic: "Maximum",
      Period: 300,
      Threshold: STREAM_ITERATOR_AGE_THRESHOLD_MS,
      ComparisonOperator: "GreaterThanThreshold",
      EvaluationPeriods: 1,
      TreatMissingData: "notBreaching",
    });
    expect(STREAM_ITERATOR_AGE_THRESHOLD_MS).toBe(60_000);
  });

  it("alarms on the first batch in the failure queue", () => {
    // Act
    const [alarm] = alarmNamed(withStream.template, "StreamFailedBatches");
    const [queueId] = Object.keys(
      withStream.template.findResources("AWS::SQS::Queue", {}) as Record<string, unknown>,
    ).filter((id) => id.startsWith("FailureQueue"));

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: { "Fn::GetAtt": [queueId, "QueueName"] } }],
      Statistic: "Maximum",
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("alarms when the consumer reports counting failures (its own metric: partial batch failures are not Lambda Errors) in consecutive periods", () => {
    // Act
    const [alarm] = alarmNamed(withStream.template, "StreamCountingFailures");

    // Assess
    expect(alarm?.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.countingFailures,
      Dimensions: [{ Name: DIMENSION.service, Value: SERVICE_NAME }],
      Statistic: "Sum",
      Period: 300,
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
      EvaluationPeriods: STREAM_FAILURE_PERIODS,
      DatapointsToAlarm: STREAM_FAILURE_PERIODS,
      TreatMissingData: "notBreaching",
    });
    expect(STREAM_FAILURE_PERIODS).toBeGreaterThan(1);
  });

  it("notifies the topic of every stream alarm, on ALARM and on OK", () => {
    // Act
    const alarms = [
      ...alarmNamed(withStream.template, "StreamIteratorAge"),
      ...alarmNamed(withStream.template, "StreamCountingFailures"),
      ...alarmNamed(withStream.template, "StreamFailedBatches"),
    ];

    // Assess
    expect(alarms).toHaveLength(3);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toHaveLength(1);
      expect(alarm.Properties.OKActions).toEqual(alarm.Properties.AlarmActions);
    }
  });

  it("graphs the iterator age, the counting lag, the failed batches and the counting failures", () => {
    // Act
    const [dashboard] = Object.values(
      withStream.template.findResources("AWS::CloudWatch::Dashboard") as Record<
        string,
        { Properties: { DashboardBody: unknown } }
      >,
    );
    const body = JSON.stringify(withStream.stack.resolve(dashboard?.Properties.DashboardBody));

    // Assess
    expect(body).toContain(`"title\\":\\"Table stream consumer\\"`);
    expect(body).toContain("IteratorAge");
    expect(body).toContain(`Counting lag p99 (ms, EMF)`);
    expect(body).toContain(METRIC.countingLag);
    expect(body).toContain(`Counting failures (EMF)`);
    expect(body).toContain(METRIC.countingFailures);
  });

  it("adds no stream alarm or graph without a stream consumer", () => {
    // Act
    const [dashboard] = Object.values(
      built.template.findResources("AWS::CloudWatch::Dashboard") as Record<
        string,
        { Properties: { DashboardBody: unknown } }
      >,
    );

    // Assess
    expect(alarmNamed(built.template, "StreamIteratorAge")).toEqual([]);
    expect(alarmNamed(built.template, "StreamFailedBatches")).toEqual([]);
    expect(alarmNamed(built.template, "StreamCountingFailures")).toEqual([]);
    expect(JSON.stringify(built.stack.resolve(dashboard?.Properties.DashboardBody))).not.toContain("IteratorAge");
  });
});

describe("OperationsDashboard synthesis", () => {
  it("synthesizes without warnings (math expressions reference only their own metrics)", () => {
    // Act
    const warnings = Annotations.fromStack(built.stack).findWarning("*", Match.anyValue());

    // Assess
    expect(warnings.map((warning) => `${warning.id}: ${String(warning.entry.data)}`)).toEqual([]);
  });

  it("leaves no unacknowledged AwsSolutions finding on its own resources", () => {
    // Act
    const findings = awsSolutionsFindings(built.ops);

    // Assess
    expect(findings.errors).toEqual([]);
    expect(findings.warnings).toEqual([]);
  });
});
