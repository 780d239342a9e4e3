import { Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import type { IHttpStage } from "aws-cdk-lib/aws-apigatewayv2";
import {
  type Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Operation, type Table } from "aws-cdk-lib/aws-dynamodb";
import { Effect, PolicyStatement, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { type ITopic, Topic } from "aws-cdk-lib/aws-sns";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct, type IConstruct } from "constructs";
import { DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE_NAME } from "../../functions/observability/metric-names.js";

/** Period of every alarm and dashboard metric. */
export const ALARM_PERIOD = Duration.minutes(5);
/** Consecutive periods with counting failures before they alarm (a single one is a retried throttle or conflict). */
export const STREAM_FAILURE_PERIODS = 2;

/** The 5xx rate (percent of requests in one period) above which the API alarms. */
export const SERVER_ERROR_RATE_PERCENT = 1;

/**
 * Requests a period must hold before its 5xx rate counts: below it the rate
 * is reported as 0, so one failed request out of three at night does not
 * page anyone (Lambda errors and the p99 latency still alarm on their own).
 */
export const MIN_REQUESTS_FOR_ERROR_RATE = 20;

/** p99 of the API's latency (ms) above which, for {@link LATENCY_DATAPOINTS} periods in a row, the API alarms. */
export const LATENCY_P99_THRESHOLD_MS = 1000;

/** Consecutive 5-minute periods the p99 latency must breach (15 minutes). */
export const LATENCY_DATAPOINTS = 3;

/**
 * CloudWatch's hard limit of metrics one metric-math alarm may read. Sums
 * over more metrics (one per function, per operation, per index) are split
 * into several alarms of at most this many.
 */
export const MAX_METRICS_PER_ALARM = 10;

/**
 * The DynamoDB operations the service calls (`ConditionCheckItem` runs inside
 * `TransactWriteItems`): the `Operation` dimensions of the table's
 * `ThrottledRequests` alarm.
 */
export const SERVICE_TABLE_OPERATIONS: readonly Operation[] = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/**
 * What the dashboard reads of the table: its name and metric helpers. A
 * `Pick` of `Table` (not `ITable`, which lacks the per-operation helper)
 * keeps concrete tables assignable under `exactOptionalPropertyTypes`.
 */
export type MonitoredTable = Pick<
  Table,
  | "tableName"
  | "metric"
  | "metricThrottledRequestsForOperation"
  | "metricConsumedReadCapacityUnits"
  | "metricConsumedWriteCapacityUnits"
>;

/** Properties of {@link OperationsDashboard}. */
export interface OperationsDashboardProps {
  /** The HTTP API stage whose API Gateway metrics (dimensions `ApiId`, `Stage`) are watched. */
  readonly stage: IHttpStage;
  /** The service's table. */
  readonly table: MonitoredTable;
  /** Names of the table's global secondary indexes, to watch their throttle events too. @default none */
  readonly indexNames?: readonly string[];
  /** Every Lambda function of the service (route handlers and workers). */
  readonly functions: readonly IFunction[];
  /** The deletion jobs' dead-letter queue: any message in it alarms. @default no DLQ alarm */
  readonly deadLetterQueue?: IQueue;
  /**
   * The stream consumer and the queue of batches it failed on every retry: its iterator age (how far it
   * lags behind the stream) and any message in the queue alarm. @default no stream alarms
   */
  readonly streamConsumer?: { readonly function: IFunction; readonly failureQueue: IQueue };
  /**
   * Where alarm and OK notifications go.
   * @default a new KMS-encrypted, TLS-only topic (`AlarmTopic`)
   */
  readonly alarmTopic?: ITopic;
  /**
   * The `service` dimension of the custom EMF metrics
   * (`POWERTOOLS_SERVICE_NAME` of the functions).
   * @default SERVICE_NAME
   */
  readonly serviceName?: string;
  /** Operations whose `ThrottledRequests` alarm. @default SERVICE_TABLE_OPERATIONS */
  readonly tableOperations?: readonly Operation[];
}

/** A metric and the short name it is shown under. */
interface LabelledMetric {
  readonly label: string;
  readonly metric: Metric;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/**
 * A short, synthesis-time name for a construct: its path below the stack,
 * without the trailing `Function` of an `ApiFunction` (`CreateSession`, not
 * `AgentTracking/CreateSession/Function`). Function names are tokens.
 */
function shortName(construct: IConstruct): string {
  const stackPath = Stack.of(construct).node.path;
  const relative = construct.node.path.startsWith(`${stackPath}/`)
    ? construct.node.path.slice(stackPath.length + 1)
    : construct.node.path;
  return relative.replace(/\/Function$/, "");
}

/** The stream consumer's iterator age above which counting is late enough to alarm (1 minute). */
export const STREAM_ITERATOR_AGE_THRESHOLD_MS = 60_000;

/**
 * The service's alarms and its CloudWatch dashboard.
 *
 * Alarms (each notifies {@link alarmTopic} on ALARM and on OK; missing data
 * is not breaching, so an idle service stays green):
 * - API 5xx rate: `5xx / Count` of the stage above {@link SERVER_ERROR_RATE_PERCENT}% in a
 *   5-minute period holding at least {@link MIN_REQUESTS_FOR_ERROR_RATE} requests;
 * - API latency: p99 above {@link LATENCY_P99_THRESHOLD_MS} ms for {@link LATENCY_DATAPOINTS} periods;
 * - Lambda `Errors` and `Throttles`: summed over the functions (metric math, at most
 *   {@link MAX_METRICS_PER_ALARM} functions per alarm), above 0 in a period;
 * - DynamoDB `ThrottledRequests` (per operation) and `ReadThrottleEvents` /
 *   `WriteThrottleEvents` (table and each index), summed, above 0 in a period;
 * - the dead-letter queue holding any visible message (when one is given);
 * - with a stream consumer: its `IteratorAge` above {@link STREAM_ITERATOR_AGE_THRESHOLD_MS} ms, and
 *   its failure queue holding any visible message (a batch that failed every retry).
 *
 * The dashboard graphs API requests, 4xx/5xx and latency (p50/p99), Lambda
 * errors, throttles and duration, DynamoDB consumed capacity and throttles,
 * the DLQ, the stream consumer's iterator age and failed batches, the custom
 * EMF metrics (`Requests`, `Latency`, `IngestedEvents` and `Rejected` by
 * status, per route) and the state of every alarm.
 *
 * No alarm or dashboard name is set: CloudFormation generates them, so two
 * stages can coexist in one account.
 */
export class OperationsDashboard extends Construct {
  /** The topic alarm and OK notifications go to (given, or created here). */
  readonly alarmTopic: ITopic;
  /** Every alarm, in creation order. */
  readonly alarms: readonly Alarm[];
  /** The dashboard. */
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);

    this.alarmTopic = props.alarmTopic ?? this.createAlarmTopic();
    const serviceName = props.serviceName ?? SERVICE_NAME;
    const { stage, table } = props;
    const indexNames = props.indexNames ?? [];
    const operations = props.tableOperations ?? SERVICE_TABLE_OPERATIONS;
    const sum = { statistic: Stats.SUM, period: ALARM_PERIOD };

    // --- metrics -------------------------------------------------------------
    const requests = stage.metricCount({ ...sum, label: "Requests" });
    const serverErrors = stage.metricServerError({ ...sum, label: "5xx" });
    const clientErrors = stage.metricClientError({ ...sum, label: "4xx" });
    const latency = (statistic: string) =>
      stage.metricLatency({ statistic, period: ALARM_PERIOD, label: `Latency ${statistic}` });

    const functions = props.functions.map((fn) => ({ fn, label: shortName(fn) }));
    const lambdaErrors: LabelledMetric[] = functions.map(({ fn, label }) => ({
      label,
      metric: fn.metricErrors({ ...sum, label }),
    }));
    const lambdaThrottles: LabelledMetric[] = functions.map(({ fn, label }) => ({
      label,
      metric: fn.metricThrottles({ ...sum, label }),
    }));

    const throttledRequests: LabelledMetric[] = operations.map((operation) => ({
      label: operation,
      metric: table.metricThrottledRequestsForOperation(operation, { ...sum, label: operation }),
    }));
    const throttleEvents: LabelledMetric[] = [
      { label: "table reads", metric: table.metric("ReadThrottleEvents", { ...sum, label: "table reads" }) },
      { label: "table writes", metric: table.metric("WriteThrottleEvents", { ...sum, label: "table writes" }) },
      ...indexNames.flatMap((indexName) =>
        (["Read", "Write"] as const).map((kind) => {
          const label = `${indexName} ${kind.toLowerCase()}s`;
          return {
            label,
            metric: table.metric(`${kind}ThrottleEvents`, {
              ...sum,
              label,
              dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
            }),
          };
        }),
      ),
    ];

    // --- alarms --------------------------------------------------------------
    const alarms: Alarm[] = [];

    alarms.push(
      new MathExpression({
        expression: `IF(requests >= ${MIN_REQUESTS_FOR_ERROR_RATE}, 100 * FILL(errors, 0) / requests, 0)`,
        usingMetrics: { requests, errors: serverErrors },
        period: ALARM_PERIOD,
        label: "5xx rate (%)",
      }).createAlarm(this, "ApiServerErrorRate", {
        alarmDescription: `More than ${SERVER_ERROR_RATE_PERCENT}% of the API's requests failed with a 5xx in 5 minutes (periods with fewer than ${MIN_REQUESTS_FOR_ERROR_RATE} requests do not count). Look for "level":"ERROR" request lines and "unhandled error" lines in the functions' logs.`,
        threshold: SERVER_ERROR_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    alarms.push(
      // Unlabelled: a single-metric alarm then reads the metric directly (no metric-math form).
      stage.metricLatency({ statistic: "p99", period: ALARM_PERIOD }).createAlarm(this, "ApiLatencyP99", {
        alarmDescription: `The API's p99 latency was above ${LATENCY_P99_THRESHOLD_MS} ms for ${LATENCY_DATAPOINTS} periods of 5 minutes in a row. Compare with the functions' Duration and the DynamoDB throttles.`,
        threshold: LATENCY_P99_THRESHOLD_MS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: LATENCY_DATAPOINTS,
        datapointsToAlarm: LATENCY_DATAPOINTS,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    alarms.push(
      ...this.sumAlarms("LambdaErrors", lambdaErrors, "Lambda function errors (Errors)"),
      ...this.sumAlarms("LambdaThrottles", lambdaThrottles, "Lambda function throttles (Throttles)"),
      ...this.sumAlarms("DynamoDbThrottledRequests", throttledRequests, "DynamoDB ThrottledRequests of the table"),
      ...this.sumAlarms("DynamoDbThrottleEvents", throttleEvents, "DynamoDB read/write throttle events"),
    );

    const deadLetters = props.deadLetterQueue?.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period: ALARM_PERIOD,
    });
    if (deadLetters !== undefined) {
      alarms.push(
        deadLetters.createAlarm(this, "DeadLetterMessages", {
          alarmDescription:
            "A deletion job failed on every retry and its message is in the dead-letter queue. The job's state is in the table; fix the cause, then redrive the message.",
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    const iteratorAge = props.streamConsumer?.function.metric("IteratorAge", {
      statistic: Stats.MAXIMUM,
      period: ALARM_PERIOD,
    });
    const failedBatches = props.streamConsumer?.failureQueue.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period: ALARM_PERIOD,
    });
    if (iteratorAge !== undefined && failedBatches !== undefined) {
      alarms.push(
        iteratorAge.createAlarm(this, "StreamIteratorAge", {
          alarmDescription: `The stream consumer lagged more than ${STREAM_ITERATOR_AGE_THRESHOLD_MS / 1000} s behind the table's stream: session counters and rollups are late. Look for "stream consumer" lines in its logs and for throttles.`,
          threshold: STREAM_ITERATOR_AGE_THRESHOLD_MS,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        // Records the consumer reports back (partial batch responses) are not Lambda Errors: its own metric.
        new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: METRIC.countingFailures,
          dimensionsMap: { [DIMENSION.service]: serviceName },
          statistic: Stats.SUM,
          period: ALARM_PERIOD,
        }).createAlarm(this, "StreamCountingFailures", {
          alarmDescription: `The stream consumer failed to count a session's records in each of ${STREAM_FAILURE_PERIODS} consecutive periods: they are retried (bisected) and, after every retry, sent to the failure queue. Look for "stream consumer could not count" lines in its logs.`,
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: STREAM_FAILURE_PERIODS,
          datapointsToAlarm: STREAM_FAILURE_PERIODS,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        failedBatches.createAlarm(this, "StreamFailedBatches", {
          alarmDescription:
            "A batch of the table's stream failed every retry: its records are not counted. The message names the shard and sequence range; fix the cause, then replay that range through the consumer (counting skips what it counted).",
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    const action = new SnsAction(this.alarmTopic);
    for (const alarm of alarms) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms = alarms;

    // --- dashboard -----------------------------------------------------------
    const search = (schema: readonly string[], metricName: string, statistic: string, label: string) =>
      new MathExpression({
        expression: `SEARCH('{${[METRICS_NAMESPACE, ...schema].join(",")}} MetricName="${metricName}" ${DIMENSION.service}="${serviceName}"', '${statistic}', ${ALARM_PERIOD.toSeconds()})`,
        usingMetrics: {},
        label,
        period: ALARM_PERIOD,
      });
    const byRoute = [DIMENSION.route, DIMENSION.service];
    const graph = (title: string, left: readonly IMetric[], right: readonly IMetric[] = []) =>
      new GraphWidget({ title, left: [...left], right: [...right], width: 8, height: 6 });

    this.dashboard = new Dashboard(this, "Dashboard", { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      graph("API requests", [requests]),
      graph("API errors (4xx / 5xx)", [clientErrors, serverErrors]),
      graph("API latency (ms)", [latency("p50"), latency("p99")]),
    );
    this.dashboard.addWidgets(
      graph(
        "Lambda errors",
        lambdaErrors.map(({ metric }) => metric),
      ),
      graph(
        "Lambda throttles",
        lambdaThrottles.map(({ metric }) => metric),
      ),
      graph(
        "Lambda duration p99 (ms)",
        functions.map(({ fn, label }) => fn.metricDuration({ statistic: "p99", period: ALARM_PERIOD, label })),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        "DynamoDB consumed capacity",
        [table.metricConsumedReadCapacityUnits({ ...sum, label: "Read units" })],
        [table.metricConsumedWriteCapacityUnits({ ...sum, label: "Write units" })],
      ),
      graph(
        "DynamoDB throttles",
        [...throttledRequests, ...throttleEvents].map(({ metric }) => metric),
      ),
      ...(deadLetters !== undefined
        ? [graph("Deletion dead-letter queue", [deadLetters.with({ label: "Visible messages" })])]
        : []),
    );
    if (iteratorAge !== undefined && failedBatches !== undefined) {
      this.dashboard.addWidgets(
        graph(
          "Table stream consumer",
          [
            iteratorAge.with({ label: "Iterator age max (ms)" }),
            search([DIMENSION.service], METRIC.countingLag, "p99", "Counting lag p99 (ms, EMF)"),
          ],
          [
            failedBatches.with({ label: "Failed batches (visible messages)" }),
            search([DIMENSION.service], METRIC.countingFailures, "Sum", "Counting failures (EMF)"),
          ],
        ),
      );
    }
    this.dashboard.addWidgets(
      graph("Requests by route (EMF)", [search(byRoute, METRIC.requests, "Sum", "")]),
      graph("Rejected requests by route and status (EMF)", [
        search([...byRoute, DIMENSION.status], METRIC.rejected, "Sum", ""),
      ]),
      graph("Ingested events by route (EMF)", [search(byRoute, METRIC.ingestedEvents, "Sum", "")]),
    );
    this.dashboard.addWidgets(
      graph("Latency p99 by route (EMF, ms)", [search(byRoute, METRIC.latency, "p99", "")]),
      new AlarmStatusWidget({ title: "Alarms", alarms, width: 16, height: 6 }),
    );
  }

  /**
   * One alarm per group of at most {@link MAX_METRICS_PER_ALARM} metrics,
   * on the sum of the group (missing data counted as 0), above 0 in a period.
   */
  private sumAlarms(idPrefix: string, metrics: readonly LabelledMetric[], what: string): Alarm[] {
    return chunks(metrics, MAX_METRICS_PER_ALARM).map((group, index) => {
      const usingMetrics = Object.fromEntries(group.map(({ metric }, position) => [`m${position}`, metric]));
      const ids = Object.keys(usingMetrics);
      const expression = ids.length === 1 ? "FILL(m0, 0)" : `SUM(FILL([${ids.join(", ")}], 0))`;
      return new MathExpression({ expression, usingMetrics, period: ALARM_PERIOD, label: what }).createAlarm(
        this,
        `${idPrefix}${index + 1}`,
        {
          alarmDescription: `${what} above 0 in 5 minutes, summed over: ${group.map(({ label }) => label).join(", ")}.`,
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        },
      );
    });
  }

  /**
   * The default notification topic: encrypted with a customer-managed KMS key
   * (AwsSolutions-SNS2; CloudWatch cannot publish to a topic encrypted with
   * the AWS-managed `alias/aws/sns` key, so the key grants CloudWatch exactly
   * what it needs), TLS-only (AwsSolutions-SNS3), and publishable by this
   * account's CloudWatch alarms only. Subscribe to it (email, chat, pager)
   * after deployment.
   */
  private createAlarmTopic(): Topic {
    const key = new Key(this, "AlarmTopicKey", {
      description: "Encrypts the Agent Tracking Service's alarm notifications",
      enableKeyRotation: true,
      // The key protects transient notifications only, never stored data.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: "AllowCloudWatchAlarmsToUseTheKey",
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["kms:Decrypt", "kms:GenerateDataKey*"],
        resources: ["*"],
      }),
    );

    const topic = new Topic(this, "AlarmTopic", {
      displayName: "Agent Tracking Service alarms",
      masterKey: key,
      enforceSSL: true,
    });
    const { account, region, partition } = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: "AllowThisAccountsCloudWatchAlarmsToPublish",
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["sns:Publish"],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { "aws:SourceAccount": account },
          ArnLike: { "aws:SourceArn": `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    return topic;
  }
}
