/** What the outbox tells `onError`: the service's answers turned into errors that say what was lost and why. */
import { AtsDeliveryError } from "./errors.js";
import type { Delivery } from "./transport.js";

/** One event's entry in a batch answer. */
export interface BatchResult {
  readonly status: number;
  readonly error?: unknown;
}

/** The per-event results of a batch answer, when it has one for each event sent. */
export function batchResults(body: unknown, count: number): BatchResult[] | undefined {
  const results = (body as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results) || results.length !== count) return undefined;
  if (!results.every((result) => typeof (result as { status?: unknown })?.status === "number")) return undefined;
  return results as BatchResult[];
}

function messageOf(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : undefined;
}

/** A request that ended without success: refused (the answer a retry cannot change), given up, or stopped. */
export function deliveryFailure(
  delivery: Delivery,
  operation: string,
  sessionId: string | undefined,
  lostEvents: number,
  conversationId?: string,
): AtsDeliveryError {
  const context = {
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(conversationId === undefined ? {} : { conversationId }),
  };
  // Named with where it went: a wrong base URL or key shows in the warning itself.
  const request = `${operation} (${delivery.target.method} ${delivery.target.url})`;
  if (delivery.kind === "answered") {
    const { status, body } = delivery.answer;
    return new AtsDeliveryError("rejected", `${request}: ${status} ${messageOf(body) ?? ""}`.trim(), {
      operation,
      status,
      body,
      attempts: delivery.attempts,
      lostEvents,
      ...context,
    });
  }
  const last =
    delivery.lastAnswer !== undefined
      ? `${delivery.lastAnswer.status} ${messageOf(delivery.lastAnswer.body) ?? ""}`.trim()
      : (delivery.lastError ?? "no answer");
  const code = delivery.reason === "stopped" ? "shutdown" : "retries_exhausted";
  const why = delivery.reason === "stopped" ? "stopped by shutdown" : `gave up after ${delivery.attempts} attempts`;
  return new AtsDeliveryError(code, `${request}: ${why} (last: ${last})`, {
    operation,
    status: delivery.lastAnswer?.status,
    body: delivery.lastAnswer?.body,
    attempts: delivery.attempts,
    lostEvents,
    ...context,
  });
}

/** A session start that failed for good: the session's events go with it. */
export function sessionNotCreatedError(sessionId: string, cause: AtsDeliveryError): AtsDeliveryError {
  return new AtsDeliveryError(
    "session_not_created",
    `Session ${sessionId} was not created (${cause.message}); its ${cause.lostEvents} queued events and any later ones are dropped`,
    {
      operation: "createSession",
      status: cause.status,
      body: cause.body,
      attempts: cause.attempts,
      lostEvents: cause.lostEvents,
      sessionId,
    },
  );
}

/** Events the service refused in a batch answer (4xx per event), with the first 20 refusals as the body. */
export function refusedEventsError(
  refused: readonly { sessionId: string; eventType: string; status: number; error: unknown }[],
): AtsDeliveryError {
  const first = refused[0] as (typeof refused)[number];
  const message = messageOf(first.error) ?? `status ${first.status}`;
  return new AtsDeliveryError(
    "rejected",
    `The service refused ${refused.length} event${refused.length === 1 ? "" : "s"} (first: ${first.status} ${message})`,
    {
      operation: "recordEvents",
      status: first.status,
      body: refused.slice(0, 20),
      attempts: 1,
      lostEvents: refused.length,
      sessionId: first.sessionId,
    },
  );
}
