/**
 * The door from the monitors' evaluator to the destinations (issue 34's contract): `dispatchAlertNotification`
 * hands one notification over for delivery to each named destination — an SQS message each on AWS
 * (`ALERT_DELIVERY_QUEUE_URL`), an in-process job on a timer locally — and returns. Delivery, retries with backoff
 * and the bookkeeping happen after (delivery-attempt.ts), with the same `notificationId` on every retry; a
 * destination's failure never reaches the caller. A missing or disabled destination is skipped when its job runs.
 */
import type { AlertNotification } from "../../domain/alert-notification.js";
import { enqueueDeliveries } from "./delivery-queue.js";

export async function dispatchAlertNotification(
  notification: AlertNotification,
  destinationIds: readonly string[],
): Promise<void> {
  const jobs = [...new Set(destinationIds)].map((destinationId) => ({ notification, destinationId, attempt: 1 }));
  await enqueueDeliveries(jobs);
}
