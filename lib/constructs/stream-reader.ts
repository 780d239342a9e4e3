import { Duration, Validations } from "aws-cdk-lib";
import { Table } from "aws-cdk-lib/aws-dynamodb";
import { type Function as LambdaFunction, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { DEFAULT_STREAM_BATCHING_WINDOW_SECONDS, WINDOWED_STREAM_BATCH_SIZE } from "../stream-batching.js";

/** Stream records per invocation of the consumer without a batching window (`streamBatchingWindowSeconds` 0). */
export const STREAM_BATCH_SIZE = 100;
export { DEFAULT_STREAM_BATCHING_WINDOW_SECONDS, WINDOWED_STREAM_BATCH_SIZE };
/** Invocations of a failing batch (halved each time, bisect on error) before it goes to the failure queue. */
export const STREAM_RETRY_ATTEMPTS = 10;

/**
 * Why a stream reader's role may call `dynamodb:ListStreams` on `*` (AwsSolutions-IAM5); exported so tests can
 * check the acknowledgement is this one.
 */
export const LIST_STREAMS_REASON =
  "dynamodb:ListStreams is one of the four actions Lambda's event source mapping needs on the execution role to read a DynamoDB stream (DescribeStream, GetRecords, GetShardIterator, ListStreams), and the Service Authorization Reference lists no resource type for it, so it can only be granted on \"*\" (aws-cdk-lib's DynamoEventSource grants it so). It returns stream ARNs of the account, never item data; the actions that read stream records are granted on this table's stream ARN alone.";

/** Context key of the event source mapping's batching window (seconds, 0–300; default 10). */
export const STREAM_BATCHING_WINDOW_CONTEXT_KEY = "streamBatchingWindowSeconds";
/** Lambda's upper bound for MaximumBatchingWindowInSeconds. */
const MAX_BATCHING_WINDOW_SECONDS = 300;

/**
 * How long the event source mapping gathers records before it invokes the consumer: the context value
 * `streamBatchingWindowSeconds` when set (an integer 0–300, checked at synthesis; 0 invokes at once), else
 * DEFAULT_STREAM_BATCHING_WINDOW_SECONDS. The trade: counting costs a write per distinct session and rollup item
 * per batch, so a window that gathers more of a session's events into one batch divides that cost by them — and
 * delays its counters by up to the window.
 */
export function streamBatchingWindowSeconds(scope: Construct): number {
  const configured: unknown = scope.node.tryGetContext(STREAM_BATCHING_WINDOW_CONTEXT_KEY);
  if (configured === undefined) return DEFAULT_STREAM_BATCHING_WINDOW_SECONDS;
  const seconds = typeof configured === "string" && /^\d+$/.test(configured) ? Number(configured) : configured;
  if (
    typeof seconds !== "number" ||
    !Number.isInteger(seconds) ||
    seconds < 0 ||
    seconds > MAX_BATCHING_WINDOW_SECONDS
  ) {
    throw new Error(
      `Context ${STREAM_BATCHING_WINDOW_CONTEXT_KEY} must be a whole number of seconds from 0 to ${MAX_BATCHING_WINDOW_SECONDS}, got ${JSON.stringify(configured)}`,
    );
  }
  return seconds;
}

/** Properties of {@link readTableStream}. */
export interface StreamReaderProps {
  /** The table; its stream must be enabled (NEW_AND_OLD_IMAGES). */
  readonly table: Table;
  /** The reader (a counting consumer, the export's marker). */
  readonly reader: LambdaFunction;
  /** Where a batch that failed every retry is described. */
  readonly failureQueue: Queue;
  /** Which records reach the reader (filtered before any invocation). */
  readonly filters: readonly Record<string, unknown>[];
  /** A tumbling window, when the reader needs the shard id with each batch. */
  readonly tumblingWindow?: Duration;
}

/**
 * One reader of the table's stream, as every reader of it is set up: from the trim horizon, batched by the
 * context's batching window (streamBatchingWindowSeconds), one batch per shard at a time, a failing batch retried
 * in halves (bisect on error) and reported from its first failed record, then described in the failure queue
 * after STREAM_RETRY_ATTEMPTS. `scope` holds the table's stream as the event source sees it.
 */
export function readTableStream(scope: Construct, props: StreamReaderProps): void {
  const streamArn = props.table.tableStreamArn;
  if (streamArn === undefined) throw new Error(`${scope.node.path} needs a table with its stream enabled`);
  const streamingTable = Table.fromTableAttributes(scope, "StreamingTable", {
    tableArn: props.table.tableArn,
    tableStreamArn: streamArn,
  });
  const batchingWindow = streamBatchingWindowSeconds(scope);
  props.reader.addEventSource(
    new DynamoEventSource(streamingTable, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: batchingWindow > 0 ? WINDOWED_STREAM_BATCH_SIZE : STREAM_BATCH_SIZE,
      bisectBatchOnError: true,
      retryAttempts: STREAM_RETRY_ATTEMPTS,
      reportBatchItemFailures: true,
      parallelizationFactor: 1,
      ...(props.tumblingWindow === undefined ? {} : { tumblingWindow: props.tumblingWindow }),
      ...(batchingWindow > 0 ? { maxBatchingWindow: Duration.seconds(batchingWindow) } : {}),
      onFailure: new SqsDlq(props.failureQueue),
      filters: [...props.filters],
    }),
  );
  // On the role (whose default policy holds the grant): the role is a sibling of the function in the construct
  // tree. IAM5 is granular: this covers the `*` resource (ListStreams) only.
  Validations.of(props.reader.role ?? props.reader).acknowledge({
    id: "AwsSolutions-IAM5[Resource::*]",
    reason: LIST_STREAMS_REASON,
  });
}
