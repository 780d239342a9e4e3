/**
 * Hands an erasure job to its worker: on AWS an SQS message (the queue's
 * worker function retries, then dead-letters); locally, the in-process
 * runner that `npm start` (or a test) registers.
 *
 * The SQS client is imported on the first dispatch, not at module load; on
 * Lambda the bundle leaves `@aws-sdk/client-sqs` out and the runtime's copy
 * is loaded (lib/constructs/api-function.ts).
 */
import type { DeletionJobMessage } from "../domain/deletion-job.js";
import { optionalEnv } from "../runtime/env.js";

const queueUrl = optionalEnv("DELETION_QUEUE_URL");

type SqsModule = typeof import("@aws-sdk/client-sqs");
let sqs: Promise<{ module: SqsModule; client: InstanceType<SqsModule["SQSClient"]> }> | undefined;

function loadSqs(): NonNullable<typeof sqs> {
  sqs ??= import("@aws-sdk/client-sqs").then((module) => ({ module, client: new module.SQSClient({}) }));
  return sqs;
}

type LocalRunner = (message: DeletionJobMessage) => void;
let localRunner: LocalRunner | undefined;

/** Local only: the function that runs jobs in this process. */
export function useLocalDeletionRunner(runner: LocalRunner | undefined): void {
  localRunner = runner;
}

export async function dispatchDeletionJob(message: DeletionJobMessage): Promise<void> {
  if (queueUrl !== undefined) {
    const { module, client } = await loadSqs();
    await client.send(new module.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    return;
  }
  if (localRunner === undefined) throw new Error("No deletion queue (DELETION_QUEUE_URL) and no local runner");
  localRunner(message);
}
