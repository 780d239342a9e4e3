/** One notification's delivery to one destination, as the queue carries it (SQS message body, local timers). */
import type { AlertNotification } from "../../domain/alert-notification.js";

export interface DeliveryJob {
  readonly notification: AlertNotification;
  readonly destinationId: string;
  /** 1 for the first try. */
  readonly attempt: number;
  /** Not to be tried before this time (ms since the epoch): SQS delays a message by 15 minutes at most. */
  readonly notBefore?: number;
}

/** What one attempt came to (also the answer of `POST …/destinations/{id}/test`). */
export interface DeliveryOutcome {
  readonly delivered: boolean;
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number;
  readonly error?: string;
}
