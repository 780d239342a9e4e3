/**
 * The door from the monitors' evaluator to the destinations: `dispatchAlertNotification` hands one notification
 * over for delivery to each of the named destinations and returns; it never throws for a destination's failure.
 *
 * First version (the contract's signature, so the evaluator can be built against it): it only logs the hand-over.
 * The queue (SQS on AWS, an in-process runner with timers locally) and the senders follow.
 */
import type { AlertNotification } from "../../domain/alert-notification.js";
import { logger } from "../../runtime/log.js";

export async function dispatchAlertNotification(
  notification: AlertNotification,
  destinationIds: readonly string[],
): Promise<void> {
  for (const destinationId of new Set(destinationIds)) {
    logger.info("alert notification handed over", {
      notificationId: notification.notificationId,
      destinationId,
    });
  }
}
