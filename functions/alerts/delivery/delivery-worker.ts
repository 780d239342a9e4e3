/**
 * The SQS-triggered worker of alert deliveries (the queue of delivery-queue.ts). Each message is one attempt of one
 * notification to one destination; the attempts of a batch run side by side (a hanging receiver holds its own
 * attempt for the timeout, not the others). An attempt's failure to deliver is handled by the attempt itself (the
 * next attempt queued, or the job dead-lettered); only an unexpected error (the table unreachable) reports the
 * message as a batch item failure, so SQS tries it again and dead-letters it after the queue's receive limit.
 */
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { logError } from "../../runtime/log.js";
import { runDeliveryAttempt } from "./delivery-attempt.js";
import type { DeliveryJob } from "./delivery-job.js";
import { enqueueDeliveries } from "./delivery-queue.js";
import { remainingWait } from "./retry-schedule.js";

async function runMessage(body: string, nowMs: number): Promise<void> {
  const job = JSON.parse(body) as DeliveryJob;
  const wait = remainingWait(job.notBefore, nowMs);
  if (wait > 0) {
    const { notBefore: _due, ...rest } = job;
    await enqueueDeliveries([rest], wait, nowMs);
    return;
  }
  await runDeliveryAttempt(job, nowMs);
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const nowMs = Date.now();
  const results = await Promise.allSettled(event.Records.map((record) => runMessage(record.body, nowMs)));
  const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
  results.forEach((result, index) => {
    const record = event.Records[index];
    if (result.status === "rejected" && record !== undefined) {
      logError("alert delivery failed unexpectedly; SQS tries it again", result.reason, {
        messageId: record.messageId,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  });
  return { batchItemFailures };
}
