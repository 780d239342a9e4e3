import { Duration, Validations } from "aws-cdk-lib";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { EventBus } from "aws-cdk-lib/aws-events";
import { FilterCriteria, FilterRule, type Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { FINAL_STATUSES } from "../../functions/domain/session.js";
import { CONVERSATION_PARTITION_PREFIX, SESSION_PARTITION_PREFIX } from "../../functions/store/table/keys.js";
import { TTL_DELETION_IDENTITY } from "../../functions/stream/ttl-deletion.js";
import { readTableStream } from "./stream-reader.js";

/**
 * The tumbling window: Lambda then passes the shard id with each batch, which the consumer's per-shard
 * high-water marks need. The consumer keeps no window state; the length only sets how often a window closes.
 */
export const STREAM_TUMBLING_WINDOW = Duration.seconds(60);

/**
 * Why the failure queue has no dead-letter queue of its own (AwsSolutions-SQS3); exported so tests can
 * check the acknowledgement is this one.
 */
export const FAILURE_QUEUE_REASON =
  "The failure queue is itself the dead-letter destination of the stream's event source mapping: Lambda sends it the description (shard id, first and last sequence number) of a batch that failed every retry. Nothing consumes it, so no message can fail a receive and need redriving; it keeps each message 14 days, the StreamFailedBatches alarm fires on the first one, and an operator reads it to replay that range of the stream. A dead-letter queue behind it would only ever stay empty.";

/** Properties of {@link StreamCounting}. */
export interface StreamCountingProps {
  /** The table; its stream must be enabled (NEW_AND_OLD_IMAGES). */
  readonly table: Table;
  /** The consumer function (functions/stream/stream-consumer.ts); only its Lambda function is used. */
  readonly consumer: { readonly function: LambdaFunction };
}

/**
 * Derived data off the request path: the table's stream feeds the consumer
 * through an event source mapping — only the records counting counts
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
    Validations.of(this.failureQueue).acknowledge({ id: "AwsSolutions-SQS3", reason: FAILURE_QUEUE_REASON });
    this.bus = new EventBus(this, "SessionEvents", {
      description: "session.completed and session.failed notifications of the Agent Tracking Service",
    });
    this.bus.grantPutEventsTo(props.consumer.function);
    props.consumer.function.addEnvironment("SESSION_EVENTS_BUS", this.bus.eventBusName);

    const sessionPartition = { PK: { S: FilterRule.beginsWith(SESSION_PARTITION_PREFIX) } };
    const scorePartitions = {
      PK: {
        S: [
          ...FilterRule.beginsWith(SESSION_PARTITION_PREFIX),
          ...FilterRule.beginsWith(CONVERSATION_PARTITION_PREFIX),
        ],
      },
    };
    readTableStream(this, {
      table: props.table,
      reader: props.consumer.function,
      failureQueue: this.failureQueue,
      tumblingWindow: STREAM_TUMBLING_WINDOW,
      // Only what counting counts (functions/store/counting/stream-counting.ts sessionChangeOf), so neither a deletion
      // nor the consumer's own counter updates come back as invocations: a new session, event or score, an event
      // or a score replaced, a session's move from active to a final status; and the expiry (a DynamoDB TTL deletion)
      // of a session holding offloaded payloads, which go with it (functions/stream/expired-payloads.ts).
      filters: [
        FilterCriteria.filter({ eventName: FilterRule.isEqual("INSERT"), dynamodb: { Keys: sessionPartition } }),
        FilterCriteria.filter({
          eventName: FilterRule.isEqual("MODIFY"),
          dynamodb: { Keys: sessionPartition, NewImage: { entity: { S: FilterRule.isEqual("event") } } },
        }),
        // A score written again by a request (its counting is pending); not the consumer's own count write. A
        // conversation's own score, new too (the INSERT filter above is of session partitions only: a summary's
        // and a count's changes stay out). One filter for both: an event source takes 5 filters by default.
        FilterCriteria.filter({
          eventName: FilterRule.or("INSERT", "MODIFY"),
          dynamodb: {
            Keys: scorePartitions,
            NewImage: {
              entity: { S: FilterRule.isEqual("score") },
              countPending: { BOOL: FilterRule.isEqual(true) },
            },
          },
        }),
        FilterCriteria.filter({
          eventName: FilterRule.isEqual("MODIFY"),
          dynamodb: {
            Keys: sessionPartition,
            OldImage: { status: { S: FilterRule.isEqual("active") } },
            NewImage: {
              entity: { S: FilterRule.isEqual("session") },
              status: { S: FilterRule.or(...FINAL_STATUSES) },
            },
          },
        }),
        FilterCriteria.filter({
          eventName: FilterRule.isEqual("REMOVE"),
          userIdentity: {
            type: FilterRule.isEqual(TTL_DELETION_IDENTITY.type),
            principalId: FilterRule.isEqual(TTL_DELETION_IDENTITY.principalId),
          },
          dynamodb: {
            Keys: sessionPartition,
            OldImage: {
              entity: { S: FilterRule.isEqual("session") },
              hasPayloads: { BOOL: FilterRule.isEqual(true) },
            },
          },
        }),
      ],
    });
  }
}
