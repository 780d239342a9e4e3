/**
 * Hands delivery jobs over, now or after a delay: on AWS an SQS message on `ALERT_DELIVERY_QUEUE_URL` (the delivery
 * worker function consumes it; SQS delays a message by 15 minutes at most, so a longer wait carries `notBefore` and
 * the worker sends it on again), locally an in-process timer that runs the attempt in this process (`npm start`,
 * the tests). A job given up after its last attempt goes to `ALERT_DELIVERY_DLQ_URL` on AWS (kept 14 days), and is
 * logged locally.
 *
 * The SQS client is imported on first use; the Lambda bundle leaves `@aws-sdk/client-sqs` to the runtime's copy.
 */
import { logger, runningInLambda } from "../../runtime/log.js";
import type { DeliveryJob } from "./delivery-job.js";
import { sqsSchedule } from "./retry-schedule.js";

type SqsModule = typeof import("@aws-sdk/client-sqs");
let sqs: Promise<{ module: SqsModule; client: InstanceType<SqsModule["SQSClient"]> }> | undefined;

function loadSqs(): NonNullable<typeof sqs> {
  sqs ??= import("@aws-sdk/client-sqs").then((module) => ({ module, client: new module.SQSClient({}) }));
  return sqs;
}

function queueUrl(): string | undefined {
  const url = process.env.ALERT_DELIVERY_QUEUE_URL;
  return url === undefined || url === "" ? undefined : url;
}

/** Jobs waiting on a local timer or running, so a test (or a shutdown) can wait for them. */
const localPending = new Set<Promise<void>>();

function runLocallyAfter(job: DeliveryJob, delayMs: number): void {
  const run = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      import("./delivery-attempt.js")
        .then(({ runDeliveryAttempt }) => runDeliveryAttempt(job))
        .catch((error: unknown) =>
          logger.error("alert delivery attempt failed unexpectedly", {
            error,
            notificationId: job.notification.notificationId,
            destinationId: job.destinationId,
          }),
        )
        .finally(resolve);
    }, delayMs);
    timer.unref();
  });
  localPending.add(run);
  void run.finally(() => localPending.delete(run));
}

/** Local only: resolves when no delivery is waiting or running in this process (retries included). */
export async function alertDeliveriesIdle(): Promise<void> {
  while (localPending.size > 0) await Promise.all([...localPending]);
}

/** Queues jobs to run after `delayMs` (0: now). */
export async function enqueueDeliveries(jobs: readonly DeliveryJob[], delayMs = 0, nowMs = Date.now()): Promise<void> {
  if (jobs.length === 0) return;
  const url = queueUrl();
  if (url === undefined) {
    // A timer in a Lambda function would be frozen with it: there, a missing queue is a deployment defect.
    if (runningInLambda())
      throw new Error("ALERT_DELIVERY_QUEUE_URL is not set: this function cannot hand deliveries over");
    for (const job of jobs) runLocallyAfter(job, delayMs);
    return;
  }
  const { delaySeconds, notBefore } = sqsSchedule(delayMs, nowMs);
  const { module, client } = await loadSqs();
  for (let start = 0; start < jobs.length; start += 10) {
    const entries = jobs.slice(start, start + 10).map((job, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(notBefore === undefined ? job : { ...job, notBefore }),
      DelaySeconds: delaySeconds,
    }));
    const result = await client.send(new module.SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    if ((result.Failed ?? []).length > 0) {
      throw new Error(`SQS refused ${result.Failed?.length} of ${entries.length} alert deliveries`);
    }
  }
}

/** A job whose last attempt failed: to the dead-letter queue on AWS, to the log locally. */
export async function giveUpDelivery(job: DeliveryJob, error: string): Promise<void> {
  const fields = {
    notificationId: job.notification.notificationId,
    destinationId: job.destinationId,
    attempts: job.attempt,
    lastError: error,
  };
  const deadLetters = process.env.ALERT_DELIVERY_DLQ_URL;
  if (deadLetters === undefined || deadLetters === "") {
    logger.warn("alert delivery given up after its last attempt", fields);
    return;
  }
  const { module, client } = await loadSqs();
  await client.send(new module.SendMessageCommand({ QueueUrl: deadLetters, MessageBody: JSON.stringify(job) }));
  logger.warn("alert delivery given up after its last attempt; sent to the dead-letter queue", fields);
}
