/**
 * The SQS-triggered worker of erasure jobs. A failed job is reported as a
 * batch item failure so only its message is retried (and dead-lettered after
 * the queue's receive limit); a job is resumable, so a retry finishes it.
 */
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { DeletionJobMessage } from "../domain/deletion-job.js";
import { logError } from "../runtime/log.js";
import { runDeletionJob } from "./run-deletion-job.js";

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
  for (const record of event.Records) {
    try {
      await runDeletionJob(JSON.parse(record.body) as DeletionJobMessage);
    } catch (error) {
      logError("deletion job failed; it will be retried", error, { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
