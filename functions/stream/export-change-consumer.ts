/**
 * The export's own reader of the table's stream (issue 35): marks the export units each batch of records touched
 * (export-changes.ts), so the next export run rebuilds exactly them. A consumer of its own, beside the counting one,
 * because it must see what counting filters out — a session's name or metadata changed, an OpenTelemetry move of its
 * start, a deleted score, a conversation summary, a TTL expiry — and it has one job. On AWS a second event source
 * mapping of the stream invokes it (lib/constructs/export-change-stream.ts: session and conversation partitions only);
 * locally `npm start`'s poller and the tests' consumer call it after the counting consumer, with the same batch.
 */
import { logError } from "../runtime/log.js";
import { markExportChanges } from "./export-changes.js";
import { changeRecordOf, type StreamBatchEvent, type StreamBatchResponse } from "./stream-batch.js";

export async function handler(event: StreamBatchEvent): Promise<StreamBatchResponse> {
  const records = event.Records.flatMap((record) => {
    const change = changeRecordOf(record);
    return change === undefined ? [] : [change];
  });
  const failedAt = await markExportChanges(records, (error) => {
    logError("could not mark the export's changed units; the batch will be delivered again", error, {
      shardId: event.shardId,
    });
  });
  return { state: {}, batchItemFailures: failedAt === undefined ? [] : [{ itemIdentifier: failedAt }] };
}
