/**
 * Hands an erasure job to its worker: on AWS an SQS message (the queue's
 * worker function retries, then dead-letters); locally, the in-process
 * runner that `npm start` (or a test) registers.
 */
import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { DeletionJobMessage } from "../domain/deletion-job.js";
import { optionalEnv } from "../runtime/env.js";

const queueUrl = optionalEnv("DELETION_QUEUE_URL");
const sqs = queueUrl === undefined ? undefined : new SQSClient({});

type LocalRunner = (message: DeletionJobMessage) => void;
let localRunner: LocalRunner | undefined;

/** Local only: the function that runs jobs in this process. */
export function useLocalDeletionRunner(runner: LocalRunner | undefined): void {
  localRunner = runner;
}

export async function dispatchDeletionJob(message: DeletionJobMessage): Promise<void> {
  if (sqs !== undefined && queueUrl !== undefined) {
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    return;
  }
  if (localRunner === undefined) throw new Error("No deletion queue (DELETION_QUEUE_URL) and no local runner");
  localRunner(message);
}
