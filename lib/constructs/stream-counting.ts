import { Duration } from "aws-cdk-lib";
import { Table } from "aws-cdk-lib/aws-dynamodb";
import { EventBus } from "aws-cdk-lib/aws-events";
import { FilterCriteria, FilterRule, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { SESSION_PARTITION_PREFIX } from "../../functions/store/keys.js";
import type { ApiFunction } from "./api-function.js";

/** Stream records per invocation of the consumer. */
export const STREAM_BATCH_SIZE = 100;
/** Invocations of a failing batch (halved each time, bisect on error) before it goes to the failure queue. */
export const STREAM_RETRY_ATTEMPTS = 10;
/**
 * The tumbling window: Lambda then passes the shard id with each batch, which the consumer's per-shard
 * high-water marks need. The consumer keeps no window state; the length only sets how often a window closes.
 */
export const STREAM_TUMBLING_WINDOW = Duration.seconds(60);

/** Properties of {@link StreamCounting}. */
export interface StreamCountingProps {
  /** The table; its stream must be enabled (NEW_AND_OLD_IMAGES). */
  readonly table: Table;
  /** The consumer function (functions/stream/stream-consumer.ts). */
  readonly consumer: ApiFunction;
}

/**
 * Derived data off the request path: the table's stream feeds the consumer
 * through an event source mapping — records of session partitions only
 * (filtered before any invocation), 100 per batch, a failing batch retried
 * in halves (bisect on error) and reported from its first failed record
 * (partial batch responses), and after {@link STREAM_RETRY_ATTEMPTS} the
 * batch's description (shard and sequence range) sent to the failure queue,
 * which alarms. The consumer publishes `session.completed` /
 * `session.failed` to the stack's event bus.
 */
export class StreamCounting extends Construct {
  /** Where the descriptions of batches that failed every retry go (SQS, kept 14 days). */
  readonly failureQueue: Queue;
  /** The bus of `session.completed` / `session.failed` notifications (source `agent-tracking`). */
  readonly bus: EventBus;

  constructor(scope: Construct, id: string, props: StreamCountingProps) {
    super(scope, id);

    this.failureQueue = new Queue(this, "FailureQueue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.bus = new EventBus(this, "SessionEvents", {
      description: "session.completed and session.failed notifications of the Agent Tracking Service",
    });
    this.bus.grantPutEventsTo(props.consumer.function);
    props.consumer.function.addEnvironment("SESSION_EVENTS_BUS", this.bus.eventBusName);

    const streamArn = props.table.tableStreamArn;
    if (streamArn === undefined) throw new Error("StreamCounting needs a table with its stream enabled");
    // The table as the event source sees it: its ARN and its stream's.
    const streamingTable = Table.fromTableAttributes(this, "StreamingTable", {
      tableArn: props.table.tableArn,
      tableStreamArn: streamArn,
    });
    props.consumer.function.addEventSource(
      new DynamoEventSource(streamingTable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: STREAM_BATCH_SIZE,
        bisectBatchOnError: true,
        retryAttempts: STREAM_RETRY_ATTEMPTS,
        reportBatchItemFailures: true,
        parallelizationFactor: 1,
        tumblingWindow: STREAM_TUMBLING_WINDOW,
        onFailure: new SqsDlq(this.failureQueue),
        // Only sessions and their events count, and never a deletion.
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.or("INSERT", "MODIFY"),
            dynamodb: { Keys: { PK: { S: FilterRule.beginsWith(SESSION_PARTITION_PREFIX) } } },
          }),
        ],
      }),
    );
  }
}
