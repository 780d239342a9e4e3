/**
 * The door from the monitors' evaluator to the destinations (issue 34's contract): `dispatchAlertNotification`
 * hands one notification over for delivery to each named destination — an SQS message each on AWS
 * (`ALERT_DELIVERY_QUEUE_URL`), an in-process job on a timer locally — and returns. Delivery, retries with backoff
 * and the bookkeeping happen after (delivery-attempt.ts), with the same `notificationId` on every retry; a
 * destination's failure never reaches the caller. A missing or disabled destination is skipped when its job runs.
 */
import type { AlertNotification } from "../../domain/alert-notification.js";
import { listDestinations } from "../../store/alerts/alert-destination-store.js";
import { enqueueDeliveries } from "./delivery-queue.js";

export async function dispatchAlertNotification(
  notification: AlertNotification,
  destinationIds: readonly string[],
): Promise<void> {
  const jobs = [...new Set(destinationIds)].map((destinationId) => ({ notification, destinationId, attempt: 1 }));
  await enqueueDeliveries(jobs);
}

/** What became of one destination of a hand-over: queued, or skipped because it is gone or turned off. */
export interface DeliveryHandOver {
  readonly destinationId: string;
  readonly status: "queued" | "missing" | "disabled";
}

/**
 * {@link dispatchAlertNotification} for a caller that answers with what it did (a monitor's test route): the
 * organisation's destinations are read once (one Query), the enabled ones queued, the others reported as skipped.
 */
export async function dispatchAlertNotificationReporting(
  notification: AlertNotification,
  destinationIds: readonly string[],
): Promise<DeliveryHandOver[]> {
  const known = new Map(
    (await listDestinations(notification.orgId)).map((destination) => [destination.id, destination]),
  );
  const handOvers = [...new Set(destinationIds)].map((destinationId): DeliveryHandOver => {
    const destination = known.get(destinationId);
    if (destination === undefined) return { destinationId, status: "missing" };
    return { destinationId, status: destination.enabled ? "queued" : "disabled" };
  });
  const queued = handOvers.filter((handOver) => handOver.status === "queued").map((handOver) => handOver.destinationId);
  await dispatchAlertNotification(notification, queued);
  return handOvers;
}
