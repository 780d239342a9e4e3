/**
 * Where an organisation's monitors send their notifications (issue 34): a signed webhook, a Slack incoming webhook
 * or the stack's EventBridge bus. Destinations belong to the organisation (both environments use them). Pure data
 * and rules; the store is functions/store/alerts/alert-destination-store.ts, delivery functions/alerts/delivery/.
 */

export const DESTINATION_KINDS = ["webhook", "slack", "eventbridge"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** A destination as the API shows it: never its signing secret. */
export interface Destination {
  /** `dst_…` */
  id: string;
  name: string;
  kind: DestinationKind;
  /** The webhook's or Slack's URL; null for EventBridge. */
  url: string | null;
  enabled: boolean;
  /** Why delivery turned it off (after {@link DESTINATION_LIMITS.failuresBeforeDisabling} failures in a row). */
  disabledReason: string | null;
  consecutiveFailures: number;
  lastDeliveryAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export const DESTINATION_LIMITS = {
  /** Destinations one organisation may hold: 409 past it. */
  perOrganisation: 20,
  nameLength: 100,
  /** A URL of at most this many characters. */
  urlLength: 2048,
  /** Deliveries failed in a row (each attempt, retries included) that turn a destination off. */
  failuresBeforeDisabling: 10,
  /** The error kept of a failed delivery, in characters. */
  errorLength: 300,
  /** Audit entries one page of the alerts audit returns. */
  auditPage: 50,
} as const;

/** Whether a kind delivers to a URL (and so needs one). */
export function kindHasUrl(kind: DestinationKind): boolean {
  return kind !== "eventbridge";
}

/** Whether a kind signs its deliveries with a secret of its own. */
export function kindIsSigned(kind: DestinationKind): boolean {
  return kind === "webhook";
}

/** The reason kept when delivery turns a destination off. */
export function disabledAfterFailures(lastError: string): string {
  return `Disabled after ${DESTINATION_LIMITS.failuresBeforeDisabling} failed deliveries in a row; the last: ${lastError}`.slice(
    0,
    DESTINATION_LIMITS.errorLength + 80,
  );
}
