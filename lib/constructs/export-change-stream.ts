import { Duration, Validations } from "aws-cdk-lib";
import { Table } from "aws-cdk-lib/aws-dynamodb";
import { FilterCriteria, FilterRule, type Function as LambdaFunction, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { CONVERSATION_PARTITION_PREFIX, SESSION_PARTITION_PREFIX } from "../../functions/store/table/keys.js";
import { WINDOWED_STREAM_BATCH_SIZE } from "../stream-batching.js";
import {
  LIST_STREAMS_REASON,
  STREAM_BATCH_SIZE,
  STREAM_RETRY_ATTEMPTS,
  streamBatchingWindowSeconds,
} from "./stream-counting.js";

/** Properties of {@link ExportChangeStream}. */
export interface ExportChangeStreamProps {
  readonly table: Table;
  /** The export's stream reader (functions/stream/export-change-consumer.ts). */
  readonly marker: { readonly function: LambdaFunction };
  /** Where a batch that failed every retry is described (the counting consumer's failure queue, which alarms). */
  readonly failureQueue: Queue;
}

/**
 * The export's own event source mapping of the table's stream (the stream's second reader, of the two DynamoDB
 * allows per shard): every change of a session's or conversation's partition — what the counting consumer's filters
 * leave out too (a renamed or moved session, a deleted score, a conversation summary, a TTL expiry) — batched as the
 * counting consumer's are, a failing batch retried in halves and then described in the failure queue.
 */
export class ExportChangeStream extends Construct {
  constructor(scope: Construct, id: string, props: ExportChangeStreamProps) {
    super(scope, id);
    const streamArn = props.table.tableStreamArn;
    if (streamArn === undefined) throw new Error("ExportChangeStream needs a table with its stream enabled");
    const streamingTable = Table.fromTableAttributes(this, "StreamingTable", {
      tableArn: props.table.tableArn,
      tableStreamArn: streamArn,
    });
    const batchingWindow = streamBatchingWindowSeconds(this);
    props.marker.function.addEventSource(
      new DynamoEventSource(streamingTable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: batchingWindow > 0 ? WINDOWED_STREAM_BATCH_SIZE : STREAM_BATCH_SIZE,
        bisectBatchOnError: true,
        retryAttempts: STREAM_RETRY_ATTEMPTS,
        reportBatchItemFailures: true,
        parallelizationFactor: 1,
        ...(batchingWindow > 0 ? { maxBatchingWindow: Duration.seconds(batchingWindow) } : {}),
        onFailure: new SqsDlq(props.failureQueue),
        filters: [
          FilterCriteria.filter({
            dynamodb: {
              Keys: {
                PK: {
                  S: [
                    ...FilterRule.beginsWith(SESSION_PARTITION_PREFIX),
                    ...FilterRule.beginsWith(CONVERSATION_PARTITION_PREFIX),
                  ],
                },
              },
            },
          }),
        ],
      }),
    );
    // As for the counting consumer: ListStreams has no resource type (IAM5 covers the `*` resource only).
    Validations.of(props.marker.function.role ?? props.marker.function).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason: LIST_STREAMS_REASON,
    });
  }
}
