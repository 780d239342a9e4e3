/**
 * Batch ingestion: each event is checked on its own (its session's tenant,
 * its `occurredAt`), planned (functions/store/events/event-batch-plan.ts) and
 * written with BatchWriteItem, 25 puts per request, the requests in parallel
 * (events with a client id: one conditional PutItem each, in parallel, whose
 * failure returns the stored event, so a replay costs no read): one item
 * write per event. An event is acknowledged (201) only once its put
 * was processed; unprocessed puts are retried with backoff. Counters and
 * rollups follow from the change stream (functions/stream/). Model calls are priced as they are prepared
 * (functions/pricing/price-event.ts), the organisation's prices read once per request that has one to price.
 */
import { ConflictError, NotFoundError, UnprocessableError } from "../../domain/errors.js";
import type { AgentEvent } from "../../domain/event.js";
import { isId, newId } from "../../domain/ids.js";
import type { Principal } from "../../domain/principal.js";
import { loadOrganisationPrices } from "../../pricing/organisation-prices.js";
import { needsPricing, priceEvent } from "../../pricing/price-event.js";
import { assertSessionWritable } from "../sessions/session-access.js";
import { writeAllWithRetry } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import type { Item } from "../table/entity.js";
import { eventIdempotencyKey, eventKey } from "../table/keys.js";
import { expiryEpochSeconds } from "../table/retention.js";
import { getItem, putIfAbsent, putIfAbsentItem, transact } from "../table/table-operations.js";
import { type BatchEventInput, type PlannedEvent, planEventBatch } from "./event-batch-plan.js";
import { assertOccurredAt, discardPayloadsIfNotStored, eventItem, storedAfter } from "./event-store.js";
import { eventIdempotencyRecordEntity } from "./idempotency-store.js";

export type { BatchEventInput } from "./event-batch-plan.js";

/** A stored event (with its id), or the error that kept it out (mapped to HTTP by the handler). */
export type BatchEventResult =
  | { readonly index: number; readonly id: string; readonly replayed?: true }
  | { readonly index: number; readonly error: unknown };

/** A key or client id already naming another event: 422 for a key (as for Idempotency-Key), 409 for an id (as for sessions). */
function reusedKey(planned?: PlannedEvent) {
  if (planned?.event.id !== undefined)
    return new ConflictError(`An event with id ${planned.event.id} already exists with other content`);
  return new UnprocessableError("This idempotencyKey was already used with a different event");
}

/** Checks every event's session (in parallel, once per session) and `occurredAt`; splits accepted from refused. */
async function admit(principal: Principal, inputs: readonly BatchEventInput[], nowMs: number) {
  const sessions = new Map<string, Promise<unknown>>();
  for (const { event } of inputs) {
    if (!sessions.has(event.sessionId)) {
      sessions.set(
        event.sessionId,
        assertSessionWritable(principal, event.sessionId, nowMs).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
    }
  }
  const refusals = new Map<string, unknown>();
  for (const [sessionId, check] of sessions) {
    const refusal = await check;
    if (refusal !== undefined) refusals.set(sessionId, refusal);
  }
  const accepted: BatchEventInput[] = [];
  const refused: BatchEventResult[] = [];
  for (const input of inputs) {
    try {
      if (!isId("session", input.event.sessionId))
        throw new NotFoundError(`Session ${input.event.sessionId} not found`);
      assertOccurredAt(input.event, principal, nowMs);
      const refusal = refusals.get(input.event.sessionId);
      if (refusal !== undefined) throw refusal;
      accepted.push(input);
    } catch (error) {
      refused.push({ index: input.index, error });
    }
  }
  return { accepted, refused };
}

/** Keyed events written at once (each its own conditional PutItem; the SDK's socket pool is 50). */
const KEYED_CONCURRENCY = 50;

/**
 * Keyed events (a client id or a key with `occurredAt`: the event id is fixed): each one conditional PutItem
 * that returns the stored item when the id is taken (ALL_OLD), so a replay is answered without reading first.
 * A stored event with the same fingerprint is a replay (its id), another event a 409/422.
 */
async function putKeyed(keyed: readonly PlannedEvent[], items: ReadonlyMap<number, Item>): Promise<BatchEventResult[]> {
  const results: BatchEventResult[] = [];
  for (let start = 0; start < keyed.length; start += KEYED_CONCURRENCY) {
    const settled = await Promise.all(
      keyed.slice(start, start + KEYED_CONCURRENCY).map(async (planned): Promise<BatchEventResult> => {
        try {
          const outcome = await putIfAbsent(items.get(planned.index) as Item, { returnExisting: true });
          if (outcome.written) return { index: planned.index, id: planned.id };
          if (outcome.existing?.fingerprint === planned.fingerprint)
            return { index: planned.index, id: planned.id, replayed: true };
          return { index: planned.index, error: reusedKey(planned) };
        } catch (error) {
          return { index: planned.index, error };
        }
      }),
    );
    results.push(...settled);
  }
  return results;
}

/** Puts `items` with BatchWriteItem, retrying unprocessed ones; resolves with the sort keys never processed. */
async function putAll(items: readonly Item[]): Promise<Set<string>> {
  const { unprocessed } = await writeAllWithRetry(items.map((item) => ({ PutRequest: { Item: item } })));
  return new Set(
    unprocessed.flatMap((request) => ("PutRequest" in request ? [String(request.PutRequest.Item.SK)] : [])),
  );
}

/**
 * An event whose key has no `occurredAt` to fix its id: its key record and the event in one transaction.
 * A taken key is a replay (its stored event id) or a reuse (422).
 */
async function writeRecorded(principal: Principal, planned: PlannedEvent, item: Item, nowMs: number) {
  const recordKey = eventIdempotencyKey(principal.orgId, principal.environment, String(planned.idempotencyKey));
  try {
    await transact([
      putIfAbsentItem(
        eventIdempotencyRecordEntity.toItem({
          key: recordKey,
          fingerprint: planned.fingerprint,
          eventId: planned.id,
          nowMs,
        }),
      ),
      putIfAbsentItem(item),
    ]);
    return { index: planned.index, id: planned.id };
  } catch (error) {
    if (!isConditionFailure(error, 0)) throw error;
    const stored = await getItem(recordKey);
    const record = stored === undefined ? undefined : eventIdempotencyRecordEntity.fromItem(stored);
    if (record !== undefined && record.fingerprint === planned.fingerprint) {
      return { index: planned.index, id: record.eventId, replayed: true as const };
    }
    throw reusedKey();
  }
}

/**
 * Stores every valid event of a batch; each result says 201 (with the id) only for an event whose put was
 * processed, and the offloaded payloads of every event not stored are deleted.
 */
export async function recordEventBatch(
  principal: Principal,
  inputs: readonly BatchEventInput[],
  nowMs = Date.now(),
): Promise<BatchEventResult[]> {
  const { accepted, refused } = await admit(principal, inputs, nowMs);
  const results: BatchEventResult[] = [...refused];
  const plan = planEventBatch(principal, accepted, () => newId("event", nowMs));
  const keyed = plan.events.filter((planned) => planned.lane === "keyed");
  const toWrite = plan.events.filter((planned) => planned.lane === "plain");
  const recorded = plan.events.filter((planned) => planned.lane === "recorded");

  const now = new Date(nowMs).toISOString();
  const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);
  // The organisation's prices: one read for the whole request, and none when no event of it is a model call to price.
  const organisationPrices = plan.events.some((planned) => needsPricing(planned.event))
    ? await loadOrganisationPrices(principal.orgId)
    : undefined;
  const prepared = new Map<number, { event: AgentEvent; item: Item }>();
  for (const planned of [...toWrite, ...keyed, ...recorded]) {
    const event: AgentEvent = {
      ...planned.event,
      ...priceEvent(planned.event, now, organisationPrices),
      id: planned.id,
      orgId: principal.orgId,
      environment: principal.environment,
      createdAt: now,
    };
    const extra = planned.lane === "keyed" ? { fingerprint: String(planned.fingerprint) } : {};
    prepared.set(planned.index, { event, item: await eventItem(event, principal.retentionDays, ttl, extra) });
  }

  const items = toWrite.map((planned) => prepared.get(planned.index)?.item as Item);
  try {
    const failed = await putAll(items);
    for (const planned of toWrite) {
      const key = eventKey(planned.event.sessionId, planned.id).SK;
      results.push(
        failed.has(key)
          ? { index: planned.index, error: new Error(`BatchWriteItem left event ${planned.id} unprocessed`) }
          : { index: planned.index, id: planned.id },
      );
    }
  } catch (error) {
    for (const planned of toWrite) results.push({ index: planned.index, error });
  }
  results.push(
    ...(await putKeyed(
      keyed,
      new Map(keyed.map((planned) => [planned.index, prepared.get(planned.index)?.item as Item])),
    )),
  );
  for (const planned of recorded) {
    const { item } = prepared.get(planned.index) as { item: Item };
    try {
      results.push(await writeRecorded(principal, planned, item, nowMs));
    } catch (error) {
      results.push({ index: planned.index, error });
    }
  }
  for (const repeat of plan.repeats) {
    const first = results.find((result) => result.index === repeat.of.index);
    if (!repeat.sameEvent) results.push({ index: repeat.index, error: reusedKey(repeat.of) });
    else if (first !== undefined && "id" in first) results.push({ index: repeat.index, id: first.id, replayed: true });
    else results.push({ index: repeat.index, error: first === undefined ? reusedKey(repeat.of) : first.error });
  }
  await discardUnstoredPayloads(results, prepared);
  return results.sort((a, b) => a.index - b.index);
}

/** Deletes the offloaded payloads of every event of the batch that was not stored (refused, or a replay). */
async function discardUnstoredPayloads(
  results: readonly BatchEventResult[],
  prepared: ReadonlyMap<number, { event: AgentEvent; item: Item }>,
): Promise<void> {
  for (const result of results) {
    const candidate = prepared.get(result.index);
    if (candidate === undefined) continue;
    const { event, item } = candidate;
    if ("error" in result) await discardPayloadsIfNotStored(event.sessionId, event.id, item, storedAfter(result.error));
    // A replay of a recorded key answers with the id stored the first time: this attempt's event was not stored.
    else if (result.replayed === true && result.id !== event.id)
      await discardPayloadsIfNotStored(event.sessionId, event.id, item, "no");
  }
}
