/**
 * How a batch of events is written, decided without I/O: each event's id and
 * lane, repeats of an idempotency key within the request, and the chunks of
 * BatchWriteItem (25 puts each).
 *
 * Lanes:
 * - `plain`: no id, no idempotency key; a fresh id; one unconditional put (1 WCU under 1 KB).
 * - `keyed`: the client's own `id` (what the SDK sends), or an `idempotencyKey` with an `occurredAt`,
 *   from which the id is derived (its time part is `occurredAt`, its random part a hash of tenant,
 *   session and key). Either way a retry names the very same item: a strongly consistent read before
 *   the write tells a replay (same fingerprint) from a reuse of the id or key (422), and the put itself
 *   costs 1 WCU.
 * - `recorded`: an `idempotencyKey` without `occurredAt`: nothing fixes the event's time, so the key
 *   gets its own record, written with the event in one transaction (4 WCU).
 */
import { createHash } from "node:crypto";
import type { Environment } from "../../domain/api-key.js";
import type { NewEvent } from "../../domain/event.js";
import { derivedUlid } from "../../domain/ids.js";

/** DynamoDB's limit on the requests of one BatchWriteItem. */
export const BATCH_WRITE_LIMIT = 25;

export interface BatchEventInput {
  readonly index: number;
  readonly event: NewEvent;
  readonly idempotencyKey?: string | undefined;
}

export type BatchLane = "plain" | "keyed" | "recorded";

export interface PlannedEvent {
  readonly index: number;
  readonly event: NewEvent;
  readonly id: string;
  readonly lane: BatchLane;
  readonly idempotencyKey?: string | undefined;
  /** SHA-256 of the event as sent, for events with an idempotency key. */
  readonly fingerprint?: string | undefined;
}

/** A later event of the request with the key of an earlier one: a replay of it, or a reuse of the key. */
export interface RepeatedKey {
  readonly index: number;
  readonly of: PlannedEvent;
  readonly sameEvent: boolean;
}

export interface BatchPlan {
  readonly events: readonly PlannedEvent[];
  readonly repeats: readonly RepeatedKey[];
}

export function eventFingerprint(event: NewEvent): string {
  return createHash("sha256").update(JSON.stringify(event)).digest("hex");
}

/** The id of a keyed event: fixed by its tenant, session, key and `occurredAt`. */
export function keyedEventId(
  tenant: { readonly orgId: string; readonly environment: Environment },
  sessionId: string,
  idempotencyKey: string,
  occurredAt: string,
): string {
  const seed = createHash("sha256")
    .update(`${tenant.orgId}\n${tenant.environment}\n${sessionId}\n${idempotencyKey}`)
    .digest();
  return `evt_${derivedUlid(Date.parse(occurredAt), seed)}`;
}

/** Plans the accepted events of a batch; `mintId` names plain events. */
export function planEventBatch(
  tenant: { readonly orgId: string; readonly environment: Environment },
  inputs: readonly BatchEventInput[],
  mintId: () => string,
): BatchPlan {
  const events: PlannedEvent[] = [];
  const repeats: RepeatedKey[] = [];
  const byKey = new Map<string, PlannedEvent>();
  for (const input of inputs) {
    const { idempotencyKey, event } = input;
    if (event.id !== undefined) {
      const fingerprint = eventFingerprint(event);
      const seen = byKey.get(`${event.sessionId}\u0000id\u0000${event.id}`);
      if (seen !== undefined) {
        repeats.push({ index: input.index, of: seen, sameEvent: seen.fingerprint === fingerprint });
        continue;
      }
      const planned: PlannedEvent = { index: input.index, event, id: event.id, lane: "keyed", fingerprint };
      byKey.set(`${event.sessionId}\u0000id\u0000${event.id}`, planned);
      events.push(planned);
      continue;
    }
    if (idempotencyKey === undefined) {
      events.push({ index: input.index, event, id: mintId(), lane: "plain" });
      continue;
    }
    const fingerprint = eventFingerprint(event);
    // Keys are per tenant; keyed ids are also per session, so a repeat is the same key on the same session.
    const seen = byKey.get(`${event.sessionId}\u0000key\u0000${idempotencyKey}`);
    if (seen !== undefined) {
      repeats.push({ index: input.index, of: seen, sameEvent: seen.fingerprint === fingerprint });
      continue;
    }
    const planned: PlannedEvent =
      event.occurredAt === undefined
        ? { index: input.index, event, id: mintId(), lane: "recorded", idempotencyKey, fingerprint }
        : {
            index: input.index,
            event,
            id: keyedEventId(tenant, event.sessionId, idempotencyKey, event.occurredAt),
            lane: "keyed",
            idempotencyKey,
            fingerprint,
          };
    byKey.set(`${event.sessionId}\u0000key\u0000${idempotencyKey}`, planned);
    events.push(planned);
  }
  return { events, repeats };
}

/** `items` in runs of at most `size` (BatchWriteItem takes 25). */
export function chunked<T>(items: readonly T[], size = BATCH_WRITE_LIMIT): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`Chunk size must be a positive integer: ${size}`);
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
