/**
 * Idempotency records (IETF draft "The Idempotency-Key HTTP Header Field"),
 * one item per tenant (organisation + environment) and key
 * (keys.ts `requestIdempotencyKey`): a test key can neither replay nor pre-claim
 * a live key's requests. A record is
 * claimed (in flight, with a short lock) before the handler runs, completed
 * with the response after, and expires by TTL 24 hours after its first use.
 * A claim also fixes the id the request will create, so a request retried
 * after a crash writes the same item again instead of a second one.
 */
import type { Environment } from "../../domain/api-key.js";
import { ulid } from "../../domain/ids.js";
import { conditionFailureItem, isConditionFailure } from "../table/condition-failure.js";
import { defineEntity, type Item } from "../table/entity.js";
import { type ItemKey, requestIdempotencyKey } from "../table/keys.js";
import { deleteItem, updateIfExists, updateItem } from "../table/table-operations.js";

/** How long replays are answered. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** How long a claimed request counts as in flight (a little over the function timeout). */
export const IN_FLIGHT_LOCK_MS = 15_000;

export interface StoredResponse {
  readonly statusCode: number;
  readonly body: string;
  readonly contentType?: string | undefined;
}

export type Claim =
  | { readonly outcome: "claimed"; readonly plannedUlid: string }
  | { readonly outcome: "replay"; readonly response: StoredResponse }
  | { readonly outcome: "in_flight" }
  | { readonly outcome: "mismatch" };

export const IDEMPOTENCY_RECORD_ENTITY = "idempotencyRecord";

/** A request's record as stored: what a claim that lost its condition reads back. */
interface RequestRecord {
  readonly state: "in_flight" | "completed";
  readonly fingerprint: string;
  readonly ttl?: number | undefined;
  readonly response?: StoredResponse | undefined;
}

/** A request's idempotency record (`IDEMPOTENCY#<tenant>#REQUEST#<key>`), written by `claim`'s update. */
const requestRecordEntity = defineEntity<RequestRecord, { owner: IdempotencyTenant; key: string }>({
  tag: IDEMPOTENCY_RECORD_ENTITY,
  fields: { state: "string", fingerprint: "string" },
  key: ({ owner, key }) => requestIdempotencyKey(owner.orgId, owner.environment, key),
  // Written field by field by claim's update (if_not_exists keeps the first claim's fingerprint and id).
  attributes: () => ({}),
});

/** What a batch event's key record is written from. */
export interface EventIdempotencyInput {
  readonly key: ItemKey;
  readonly fingerprint: string | undefined;
  readonly eventId: string;
  readonly nowMs: number;
}

/**
 * A batch event's key record (`IDEMPOTENCY#<tenant>#EVENT#<key>`): the fingerprint of the event and the id it
 * was stored under, kept IDEMPOTENCY_WINDOW_SECONDS (written by event-batch-store.ts with the event).
 */
export const eventIdempotencyRecordEntity = defineEntity<
  { readonly fingerprint?: string; readonly eventId: string },
  EventIdempotencyInput
>({
  tag: IDEMPOTENCY_RECORD_ENTITY,
  fields: { eventId: "string" },
  storageAttributes: ["ttl"],
  key: (input) => input.key,
  attributes: (input) => ({
    fingerprint: input.fingerprint,
    eventId: input.eventId,
    ttl: Math.floor(input.nowMs / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
  }),
});

/** Whose record it is: the caller's organisation and environment. */
export interface IdempotencyTenant {
  readonly orgId: string;
  readonly environment: Environment;
}

/** Claims `key` for a request with this fingerprint, or says why it cannot be claimed. */
export async function claim(
  owner: IdempotencyTenant,
  key: string,
  fingerprint: string,
  nowMs = Date.now(),
): Promise<Claim> {
  try {
    const attributes = await updateItem({
      Key: requestRecordEntity.key({ owner, key }),
      UpdateExpression:
        "SET #state = :inFlight, lockedUntil = :lock, fingerprint = if_not_exists(fingerprint, :fingerprint), plannedUlid = if_not_exists(plannedUlid, :ulid), #ttl = if_not_exists(#ttl, :ttl), entity = :entity",
      ConditionExpression:
        "attribute_not_exists(PK) OR (#state = :inFlight AND lockedUntil < :now AND fingerprint = :fingerprint)",
      ExpressionAttributeNames: { "#state": "state", "#ttl": "ttl" },
      ExpressionAttributeValues: {
        ":inFlight": "in_flight",
        ":lock": nowMs + IN_FLIGHT_LOCK_MS,
        ":now": nowMs,
        ":fingerprint": fingerprint,
        ":ulid": ulid(nowMs),
        ":ttl": Math.floor(nowMs / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
        ":entity": IDEMPOTENCY_RECORD_ENTITY,
      },
      ReturnValues: "ALL_NEW",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    });
    return { outcome: "claimed", plannedUlid: String(attributes?.plannedUlid) };
  } catch (error) {
    const failed: Item | undefined = isConditionFailure(error) ? conditionFailureItem(error) : undefined;
    if (failed === undefined) throw error;
    const existing = requestRecordEntity.fromItem(failed);
    if (typeof existing.ttl === "number" && existing.ttl <= Math.floor(nowMs / 1000)) {
      // Expired but not yet removed by TTL: a new request under an old key.
      await release(owner, key, { forget: true });
      return claim(owner, key, fingerprint, nowMs);
    }
    if (existing.fingerprint !== fingerprint) return { outcome: "mismatch" };
    if (existing.state === "completed" && existing.response !== undefined) {
      return { outcome: "replay", response: existing.response };
    }
    return { outcome: "in_flight" };
  }
}

/** Records the response a claimed request produced; replays answer with it. */
export async function complete(owner: IdempotencyTenant, key: string, response: StoredResponse): Promise<void> {
  await updateIfExists(
    requestRecordEntity.key({ owner, key }),
    { set: { state: "completed", response }, remove: ["lockedUntil"] },
    { allowed: ["state", "response", "lockedUntil"] },
  );
}

/**
 * Gives up a claim after a failure the client should retry: the lock is
 * released at once (the planned id is kept, so the retry writes the same item);
 * `forget` removes the record entirely.
 */
export async function release(
  owner: IdempotencyTenant,
  key: string,
  options: { forget?: boolean } = {},
): Promise<void> {
  if (options.forget) {
    await deleteItem(requestRecordEntity.key({ owner, key }));
    return;
  }
  await updateIfExists(
    requestRecordEntity.key({ owner, key }),
    { set: { lockedUntil: 0 } },
    { allowed: ["lockedUntil"] },
  );
}
