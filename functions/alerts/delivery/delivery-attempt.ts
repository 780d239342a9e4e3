/**
 * One attempt of a delivery job: read the destination (a deleted one is skipped, a disabled one too), send, keep the
 * outcome on the destination (failures in a row, the last error; the tenth failure in a row turns it off), and on
 * failure queue the next attempt after the schedule's wait (retry-schedule.ts), or give the job up after the last.
 */
import { logger } from "../../runtime/log.js";
import {
  readDestinationForDelivery,
  recordDeliveryFailure,
  recordDeliverySuccess,
} from "../../store/alerts/alert-destination-store.js";
import type { DeliveryJob, DeliveryOutcome } from "./delivery-job.js";
import { enqueueDeliveries, giveUpDelivery } from "./delivery-queue.js";
import { delayAfterFailedAttempt } from "./retry-schedule.js";
import { sendNotification } from "./send-notification.js";

export type AttemptResult = DeliveryOutcome | { readonly skipped: "missing" | "disabled" };

export async function runDeliveryAttempt(job: DeliveryJob, nowMs = Date.now()): Promise<AttemptResult> {
  const { notification, destinationId } = job;
  const fields = { notificationId: notification.notificationId, destinationId, attempt: job.attempt };
  const destination = await readDestinationForDelivery(notification.orgId, destinationId);
  if (destination === undefined) {
    logger.info("alert delivery skipped: the destination no longer exists", fields);
    return { skipped: "missing" };
  }
  if (!destination.enabled) {
    logger.info("alert delivery skipped: the destination is disabled", fields);
    return { skipped: "disabled" };
  }
  const outcome = await sendNotification(destination, notification, nowMs);
  const at = new Date(nowMs).toISOString();
  if (outcome.delivered) {
    await recordDeliverySuccess(notification.orgId, destinationId, at);
    logger.info("alert delivered", { ...fields, status: outcome.status });
    return outcome;
  }
  const error = outcome.error ?? "Delivery failed";
  const { disabled } = await recordDeliveryFailure(notification.orgId, destinationId, error, at);
  logger.warn("alert delivery failed", { ...fields, status: outcome.status, error, disabled });
  if (disabled) return outcome;
  const delay = delayAfterFailedAttempt(job.attempt);
  if (delay === undefined) await giveUpDelivery(job, error);
  else await enqueueDeliveries([{ notification, destinationId, attempt: job.attempt + 1 }], delay, nowMs);
  return outcome;
}
