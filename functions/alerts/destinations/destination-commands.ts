/**
 * What the destination routes do, between the request and the store: a URL's host checked against the delivery
 * policy (its addresses resolved now, and again at every delivery), a webhook's signing secret made (returned once),
 * the test delivery. The handlers parse, authorise, call one of these and answer.
 */
import { type DestinationKind, kindHasUrl, kindIsSigned } from "../../domain/alert-destination.js";
import { ALERT_NOTIFICATION_TYPES, type AlertNotification } from "../../domain/alert-notification.js";
import { ConflictError, NotFoundError, ValidationError } from "../../domain/errors.js";
import { isId, newId } from "../../domain/ids.js";
import type { UserPrincipal } from "../../domain/user-principal.js";
import type { CreateDestinationBody, UpdateDestinationBody } from "../../schemas/alert-destination-schemas.js";
import {
  createDestination,
  getDestination,
  rotateSigningSecret,
  type StoredDestination,
  updateDestination,
} from "../../store/alerts/alert-destination-store.js";
import type { DeliveryOutcome } from "../delivery/delivery-job.js";
import { DestinationUrlError, resolveDeliveryTarget, urlPolicy } from "../delivery/destination-url-policy.js";
import { sendNotification } from "../delivery/send-notification.js";
import { newSigningSecret } from "../delivery/webhook-signature.js";

function actorOf(caller: UserPrincipal) {
  return { name: caller.username, id: caller.userId };
}

/** The destination id of a path: 404 for anything that is not one (no read). */
export function destinationIdParameter(orgId: string, value: string | undefined): string {
  if (value === undefined || !isId("alertDestination", value)) {
    throw new NotFoundError(`No destination ${String(value).slice(0, 60)} in organisation ${orgId}`);
  }
  return value;
}

/** The URL a kind takes: resolved and checked (400 on `url` when refused), or null for EventBridge. */
async function checkedUrl(kind: DestinationKind, url: string | undefined): Promise<string | null> {
  if (!kindHasUrl(kind)) {
    if (url !== undefined)
      throw new ValidationError("Invalid request body: url", [
        { path: "url", message: "An eventbridge destination has no URL" },
      ]);
    return null;
  }
  if (url === undefined) {
    throw new ValidationError("Invalid request body: url", [
      { path: "url", message: `Required for a ${kind} destination` },
    ]);
  }
  try {
    await resolveDeliveryTarget(url, urlPolicy());
  } catch (error) {
    if (!(error instanceof DestinationUrlError)) throw error;
    throw new ValidationError("Invalid request body: url", [{ path: "url", message: error.message }]);
  }
  return url;
}

/** Creates a destination; a webhook's secret comes back with it, the only time it is shown. */
export async function createAlertDestination(
  caller: UserPrincipal,
  body: CreateDestinationBody,
): Promise<{ destination: StoredDestination; secret?: string }> {
  const url = await checkedUrl(body.kind, body.url);
  const secret = kindIsSigned(body.kind) ? newSigningSecret() : undefined;
  const destination = await createDestination(
    caller.orgId,
    { name: body.name, kind: body.kind, url, signingSecret: secret },
    actorOf(caller),
  );
  return secret === undefined ? { destination } : { destination, secret };
}

export async function updateAlertDestination(
  caller: UserPrincipal,
  destinationId: string,
  body: UpdateDestinationBody,
): Promise<StoredDestination> {
  const stored = await getDestination(caller.orgId, destinationId);
  const url = stored.url === body.url && body.url !== undefined ? stored.url : await checkedUrl(stored.kind, body.url);
  return updateDestination(
    caller.orgId,
    destinationId,
    { name: body.name, url, enabled: body.enabled },
    actorOf(caller),
  );
}

/** A new signing secret for a webhook (409 for the other kinds); the old one stops signing at once. */
export async function rotateAlertDestinationSecret(caller: UserPrincipal, destinationId: string): Promise<string> {
  const stored = await getDestination(caller.orgId, destinationId);
  if (!kindIsSigned(stored.kind)) {
    throw new ConflictError(
      `Destination ${destinationId} is a ${stored.kind} destination: only a webhook has a signing secret`,
    );
  }
  const secret = newSigningSecret();
  await rotateSigningSecret(caller.orgId, destinationId, secret, actorOf(caller));
  return secret;
}

/** A sample notification of type `monitor.test` for a destination test. */
function testNotification(caller: UserPrincipal, nowMs: number): AlertNotification {
  const end = new Date(Math.floor(nowMs / 300_000) * 300_000);
  const start = new Date(end.getTime() - 15 * 60_000);
  return {
    notificationId: newId("alertNotification", nowMs),
    type: ALERT_NOTIFICATION_TYPES[2],
    orgId: caller.orgId,
    environment: "live",
    monitor: {
      id: "mon_TEST",
      name: "Test notification",
      metric: "failure_rate",
      filters: {},
      windowMinutes: 15,
      comparison: "above",
      warningThreshold: 2,
      alertThreshold: 5,
    },
    state: "alert",
    previousState: "ok",
    figure: 7.5,
    samples: 40,
    threshold: 5,
    windowStart: start.toISOString(),
    windowEnd: end.toISOString(),
    occurredAt: new Date(nowMs).toISOString(),
  };
}

/**
 * Sends a test notification once, now, and says what happened; even to a disabled destination (to check a fix
 * before enabling it). It changes nothing of the destination: no failure counted, no retry.
 */
export async function testAlertDestination(
  caller: UserPrincipal,
  destinationId: string,
  nowMs = Date.now(),
): Promise<DeliveryOutcome> {
  const stored = await getDestination(caller.orgId, destinationId);
  return sendNotification(stored, testNotification(caller, nowMs), nowMs);
}
