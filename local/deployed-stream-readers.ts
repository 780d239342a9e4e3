/**
 * The table's stream readers as the stack deploys them, in one call for a local poller: the counting consumer
 * (functions/stream/stream-consumer.ts) and the export's change marker (functions/stream/export-change-consumer.ts),
 * each given the batch (on AWS each has an event source mapping of its own, with its own filters; both ignore what
 * they do not need). The answer names the earliest record either could not take, from which the poller delivers the
 * batch to both again — counting recognises what it counted, and a marker written twice is the same item.
 */
import type { StreamBatchEvent, StreamBatchResponse } from "../functions/stream/stream-batch.js";

export async function deployedStreamReaders(): Promise<(event: StreamBatchEvent) => Promise<StreamBatchResponse>> {
  const counting = (await import("../functions/stream/stream-consumer.js")).handler;
  const marking = (await import("../functions/stream/export-change-consumer.js")).handler;
  return async (event) => {
    const answers = [await counting(event), await marking(event)];
    const failed = new Set(
      answers.flatMap((answer) => answer.batchItemFailures.map((failure) => failure.itemIdentifier)),
    );
    const first = event.Records.find((record) => failed.has(record.dynamodb?.SequenceNumber ?? ""));
    const sequence = first?.dynamodb?.SequenceNumber;
    return { state: {}, batchItemFailures: sequence === undefined ? [] : [{ itemIdentifier: sequence }] };
  };
}
