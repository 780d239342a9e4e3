/**
 * The consumer of the table's change stream: counts events and session
 * starts and ends into session counters, rollups and agent summaries,
 * exactly once (functions/store/counting/stream-counting.ts), and scores into
 * their agent's score rollups (score-stream-counting.ts), and publishes session
 * notifications; and deletes the offloaded payloads of sessions that DynamoDB
 * TTL removed (expired-payloads.ts). (The Parquet export's changes are marked by a reader of its own,
 * export-change-consumer.ts.) On AWS an event source mapping invokes it with a tumbling
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
import type { DynamoDBRecord } from "aws-lambda";
import { embeddedMetricsWriter, metricsDisabledByEnvironment } from "../observability/embedded-metrics.js";
import { DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE_NAME } from "../observability/metric-names.js";
import { logError, logger, runningInLambda } from "../runtime/log.js";
import { countScores, scoresOfRecords } from "../store/counting/score-stream-counting.js";
import { type ChangeRecord, countBatch } from "../store/counting/stream-counting.js";
import { deleteExpiredPayloads } from "./expired-payloads.js";
import { publishSessionEndings } from "./session-notifications.js";
import { changeRecordOf, SINGLE_SHARD, type StreamBatchEvent, type StreamBatchResponse } from "./stream-batch.js";

export type { StreamBatchEvent, StreamBatchResponse } from "./stream-batch.js";

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
  const { failedAt } = await countBatch(shardId, records, publishSessionEndings, (sessionId, error) => {
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
  const lag = countingLag(records, Date.now());
  if (lag !== undefined) logger.debug("stream records counted", { shardId, records: records.length, lagMs: lag });
  metrics?.write({}, [
    ...(lag === undefined ? [] : [{ name: METRIC.countingLag, unit: "Milliseconds" as const, value: lag }]),
    { name: METRIC.countingFailures, unit: "Count", value: failures },
  ]);
  const firstFailure = earliestInBatch(event.Records, [failedAt, scoresFailedAt, payloadsFailedAt]);
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
