/**
 * The consumer of the table's change stream: counts events and session
 * starts and ends into session counters, rollups and agent summaries,
 * exactly once (functions/store/counting/stream-counting.ts), and scores into
 * their agent's score rollups (score-stream-counting.ts), and publishes session
 * notifications; and deletes the offloaded payloads of sessions that DynamoDB
 * TTL removed (expired-payloads.ts); and marks the Parquet export's changed units (export-changes.ts). On AWS an event source mapping invokes it with a tumbling
 * window, which puts the shard id in every event; locally `npm start`'s poller
 * (local/stream-poller.ts) calls this very handler with the same event shape.
 *
 * A batch is counted as a whole: each distinct session written once, each
 * distinct rollup item once (the event source mapping gathers 10 s of records
 * per batch). A record that cannot be counted is reported as the batch's first
 * failure: the stream delivers it and every later record of the shard again
 * (records already counted are recognised by the marks on the session and
 * rollup items).
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBRecord } from "aws-lambda";
import { embeddedMetricsWriter, metricsDisabledByEnvironment } from "../observability/embedded-metrics.js";
import { DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE_NAME } from "../observability/metric-names.js";
import { logError, logger, runningInLambda } from "../runtime/log.js";
import { countScores, scoresOfRecords } from "../store/counting/score-stream-counting.js";
import { type ChangeRecord, countBatch } from "../store/counting/stream-counting.js";
import { deleteExpiredPayloads } from "./expired-payloads.js";
import { markExportChanges } from "./export-changes.js";
import { publishSessionEndings } from "./session-notifications.js";

/** A stream event as Lambda delivers it with a tumbling window: the records of one shard, and its id. */
export interface StreamBatchEvent {
  readonly Records: readonly DynamoDBRecord[];
  readonly shardId?: string;
  readonly state?: Record<string, string>;
  readonly isFinalInvokeForWindow?: boolean;
}

/** With a tumbling window Lambda expects `state` in the answer; the consumer keeps none. */
export type StreamBatchResponse = DynamoDBBatchResponse & { state: Record<string, string> };

/** Marks of a stream without shard ids (no tumbling window) all live under this one name. */
const SINGLE_SHARD = "stream";

function changeRecordOf(record: DynamoDBRecord): ChangeRecord | undefined {
  const stream = record.dynamodb;
  const eventName = record.eventName;
  if (stream?.SequenceNumber === undefined || stream.Keys === undefined || eventName === undefined) return undefined;
  const image = (value: unknown) =>
    value === undefined ? undefined : unmarshall(value as Record<string, AttributeValue>);
  return {
    eventName,
    sequence: stream.SequenceNumber,
    keys: image(stream.Keys) ?? {},
    newImage: image(stream.NewImage),
    oldImage: image(stream.OldImage),
  };
}

const metrics =
  runningInLambda() && !metricsDisabledByEnvironment()
    ? embeddedMetricsWriter(METRICS_NAMESPACE, { [DIMENSION.service]: SERVICE_NAME })
    : undefined;

/** How long after acknowledgement the newest event of the batch is counted (ms), from its `createdAt`. */
function countingLag(records: readonly ChangeRecord[], nowMs: number): number | undefined {
  let newest: number | undefined;
  for (const record of records) {
    if (record.eventName !== "INSERT" || record.newImage?.entity !== "event") continue;
    const at = Date.parse(String(record.newImage.createdAt));
    if (Number.isFinite(at) && (newest === undefined || at > newest)) newest = at;
  }
  return newest === undefined ? undefined : Math.max(0, nowMs - newest);
}

export async function handler(event: StreamBatchEvent): Promise<StreamBatchResponse> {
  const shardId = event.shardId ?? SINGLE_SHARD;
  const records = event.Records.flatMap((record) => {
    const change = changeRecordOf(record);
    return change === undefined ? [] : [change];
  });
  let failures = 0;
  const counted = await countBatch(shardId, records, publishSessionEndings, (sessionId, error) => {
    failures += 1;
    logError("stream consumer could not count a session's records; they will be delivered again", error, {
      sessionId,
      shardId,
    });
  });
  // Scores count apart from sessions: each score item is its own mark (score-stream-counting.ts).
  const scoresFailedAt = await countScores(scoresOfRecords(records), (error) => {
    failures += 1;
    logError("stream consumer could not count scores; they will be delivered again", error, { shardId });
  });
  const payloadsFailedAt = await deleteExpiredPayloads(event.Records, (location, error) => {
    failures += 1;
    logError("stream consumer could not delete an expired session's payloads; they will be delivered again", error, {
      sessionId: location.sessionId,
      shardId,
    });
  });
  // The Parquet export's change markers (issue 35): which units the next export run rebuilds.
  const failedAt = counted.failedAt;
  const exportFailedAt = await markExportChanges(records, counted.sessionItems, (error) => {
    failures += 1;
    logError("stream consumer could not mark the export's changes; they will be delivered again", error, { shardId });
  });
  const lag = countingLag(records, Date.now());
  if (lag !== undefined) logger.debug("stream records counted", { shardId, records: records.length, lagMs: lag });
  metrics?.write({}, [
    ...(lag === undefined ? [] : [{ name: METRIC.countingLag, unit: "Milliseconds" as const, value: lag }]),
    { name: METRIC.countingFailures, unit: "Count", value: failures },
  ]);
  const firstFailure = earliestInBatch(event.Records, [failedAt, scoresFailedAt, payloadsFailedAt, exportFailedAt]);
  return { state: {}, batchItemFailures: firstFailure === undefined ? [] : [{ itemIdentifier: firstFailure }] };
}

/** Of the given sequence numbers, the one the batch holds first (delivery resumes from it). */
function earliestInBatch(
  records: readonly DynamoDBRecord[],
  sequences: readonly (string | undefined)[],
): string | undefined {
  const wanted = new Set(sequences.filter((sequence) => sequence !== undefined));
  return records.find((record) => wanted.has(record.dynamodb?.SequenceNumber ?? ""))?.dynamodb?.SequenceNumber;
}
