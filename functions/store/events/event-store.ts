/**
 * Persistence of events. An event item lives in its session's partition
 * (`SESSION#<sessionId>` / `EVENT#<eventId>`) and is written alone: one
 * conditional PutItem, 1 WCU for an item under 1 KB. The session's counters,
 * its rollups and its agent's summary are derived from the table's change
 * stream, exactly once, by the stream consumer (functions/stream/), so no
 * event waits for — or races — another on the request path.
 */
import { AtsError, ConflictError, NotFoundError, ValidationError } from "../../domain/errors.js";
import { type AgentEvent, type EventType, type NewEvent, occurredAtProblem } from "../../domain/event.js";
import { idTime, newId } from "../../domain/ids.js";
import { LIMITS } from "../../domain/limits.js";
import type { Principal } from "../../domain/principal.js";
import { loadOrganisationPrices } from "../../pricing/organisation-prices.js";
import { needsPricing, priceEvent } from "../../pricing/price-event.js";
import { logError } from "../../runtime/log.js";
import {
  discardOffloadedFields,
  hasOffloadedFields,
  offloadLargeFields,
  readStoredField,
  resolvePayloadRefs,
} from "../payloads/payload-store.js";
import { assertSessionWritable } from "../sessions/session-access.js";
import { checkItem } from "../table/entity.js";
import { EVENT_PREFIX, eventKey, sessionKey } from "../table/keys.js";
import { expiryEpochSeconds } from "../table/retention.js";
import { getItem, putIfAbsent, queryPage } from "../table/table-operations.js";
import { eventFingerprint } from "./event-batch-plan.js";

export const EVENT_ENTITY = "event";

/** Serialized events in one page of the read API at most (the first event of a page always goes in). */
export const PAGE_BUDGET_BYTES = 4 * 1024 * 1024;
/** Events of a page whose offloaded fields are fetched from S3 at once. */
const RESOLVE_BATCH = 4;

/**
 * The stored item of an event: JSON payloads as text, and any of
 * `toolInput`/`toolOutput`/`reasoning` larger than the offload threshold
 * written to S3 first (the item keeps a pointer), so an item never nears
 * DynamoDB's 400 KB limit. `extra` holds bookkeeping attributes (a batch
 * event's idempotency fingerprint).
 */
export async function eventItem(
  event: AgentEvent,
  retentionDays: number,
  ttl: number,
  extra: Readonly<Record<string, string>> = {},
): Promise<Record<string, unknown>> {
  const { toolInput, toolOutput, reasoning, ...stored } = event;
  const payloads = await offloadLargeFields(
    { orgId: event.orgId, environment: event.environment, sessionId: event.sessionId, eventId: event.id },
    {
      toolInputJson: toolInput === undefined ? undefined : JSON.stringify(toolInput),
      toolOutputJson: toolOutput === undefined ? undefined : JSON.stringify(toolOutput),
      reasoning,
    },
    retentionDays,
  );
  return { ...eventKey(event.sessionId, event.id), entity: EVENT_ENTITY, ...stored, ...payloads, ...extra, ttl };
}

/**
 * 400 when a client's `occurredAt` — or the time of its own event `id` (it orders the timeline) — is too far
 * in the future or older than retention.
 */
export function assertOccurredAt(input: NewEvent, principal: Principal, nowMs: number): void {
  const checks = [
    ["occurredAt", input.occurredAt],
    ["id", input.id === undefined ? undefined : new Date(idTime(input.id)).toISOString()],
  ] as const;
  for (const [field, value] of checks) {
    if (value === undefined) continue;
    const problem = occurredAtProblem(value, nowMs, principal.retentionDays, LIMITS.occurredAtFutureMs);
    if (problem !== undefined) {
      const message = field === "id" ? `the id's time: ${problem}` : problem;
      throw new ValidationError(`Invalid ${field}: ${message}`, [{ path: field, message }]);
    }
  }
}

/**
 * Records an event against a session of the principal's tenant: the session is checked (no read when this
 * container knows it), then the event is one conditional PutItem. Sessions in a final state still accept
 * events (a client's late flush must not be lost). With an Idempotency-Key the id is the one the key fixed
 * (`plannedUlid`), so a retry after a crash finds the item its first attempt wrote. A model call is priced here
 * (functions/pricing/price-event.ts), with the organisation's prices read only when it needs pricing; the
 * fingerprint of a client id is the event as sent, so a retry priced another day is still the same event.
 */
export async function createEvent(
  principal: Principal,
  input: NewEvent,
  nowMs = Date.now(),
  plannedUlid?: string,
): Promise<AgentEvent> {
  assertOccurredAt(input, principal, nowMs);
  const [organisationPrices] = await Promise.all([
    needsPricing(input) ? loadOrganisationPrices(principal.orgId) : undefined,
    assertSessionWritable(principal, input.sessionId, nowMs),
  ]);
  const createdAt = new Date(nowMs).toISOString();
  const event: AgentEvent = {
    ...input,
    ...priceEvent(input, createdAt, organisationPrices),
    id: input.id ?? (plannedUlid === undefined ? newId("event", nowMs) : `evt_${plannedUlid}`),
    orgId: principal.orgId,
    environment: principal.environment,
    createdAt,
  };
  const fingerprint = input.id === undefined ? undefined : eventFingerprint(input);
  const item = await eventItem(
    event,
    principal.retentionDays,
    expiryEpochSeconds(nowMs, principal.retentionDays),
    fingerprint === undefined ? {} : { fingerprint },
  );
  let outcome: Awaited<ReturnType<typeof putIfAbsent>>;
  try {
    outcome = await putIfAbsent(item, { returnExisting: true });
  } catch (error) {
    await discardPayloadsIfNotStored(input.sessionId, event.id, item, storedAfter(error));
    throw error;
  }
  if (outcome.written) return event;
  const stored = outcome.existing;
  if (stored !== undefined) {
    // A retry of an event with the client's own id: the stored event, unless the id now names another.
    if (fingerprint !== undefined) {
      if (stored.fingerprint !== fingerprint) {
        await discardPayloadsIfNotStored(input.sessionId, event.id, item, "no");
        throw new ConflictError(`An event with id ${event.id} already exists with other content`);
      }
      return eventFromItem(stored, true);
    }
    // Written by an earlier attempt of this very request (same Idempotency-Key).
    if (plannedUlid !== undefined) return eventFromItem(stored, true);
  }
  // A fresh id already taken (not a retry): nothing of this request was stored.
  const taken = new Error(`Event ${event.id} already exists`);
  await discardPayloadsIfNotStored(input.sessionId, event.id, item, storedAfter(taken));
  throw taken;
}

/**
 * Whether an event whose write failed with `failure` may be stored all the same: a refusal of the
 * service's own (an AtsError: unknown or foreign session, …) stored nothing; after any other failure
 * (a timeout, say) the write may have happened.
 */
export function storedAfter(failure: unknown): "no" | "unknown" {
  return failure instanceof AtsError ? "no" : "unknown";
}

/**
 * After a write failed: deletes the S3 objects of the event's offloaded fields unless the event was
 * stored after all, so a refused request leaves nothing in the bucket. When that is `unknown`, the event
 * is looked up first, and the objects are kept if that cannot be told. Never throws: the original
 * failure is what the caller reports.
 */
export async function discardPayloadsIfNotStored(
  sessionId: string,
  eventId: string,
  item: Readonly<Record<string, unknown>>,
  stored: "no" | "unknown",
): Promise<void> {
  if (!hasOffloadedFields(item)) return;
  try {
    if (stored === "unknown" && (await getEventSummary(sessionId, eventId)) !== undefined) return;
    await discardOffloadedFields(item);
  } catch (error) {
    logError("could not discard the payloads of an unstored event", error, { sessionId, eventId });
  }
}

/** One stored event without its payload fields (no S3 read), or undefined. */
export async function getEventSummary(sessionId: string, eventId: string): Promise<AgentEvent | undefined> {
  const stored = await getItem(eventKey(sessionId, eventId), { consistent: true });
  if (stored === undefined) return undefined;
  const { toolInputJsonRef, toolOutputJsonRef, reasoningRef, ...item } = stored;
  return eventFromItem(item, true);
}

/** The stored attribute of each event field the field route serves (tool objects are stored as JSON text). */
const STORED_FIELD = { toolInput: "toolInputJson", toolOutput: "toolOutputJson", reasoning: "reasoning" } as const;

/** An event field served whole by `GET /api/sdk/sessions/{id}/events/{eventId}/{field}`. */
export type EventField = keyof typeof STORED_FIELD;

/**
 * One field of a stored event, as text (JSON text for `toolInput`/`toolOutput`), whatever its size and
 * wherever it is stored. 404 when the session holds no such event, or the event no such field.
 */
export async function getEventField(sessionId: string, eventId: string, field: EventField): Promise<string> {
  const stored = await getItem(eventKey(sessionId, eventId));
  const expired = typeof stored?.ttl === "number" && stored.ttl * 1000 <= Date.now();
  if (stored === undefined || stored.entity !== EVENT_ENTITY || expired) {
    throw new NotFoundError(`Event ${eventId} not found in session ${sessionId}`);
  }
  const text = await readStoredField(stored, STORED_FIELD[field]);
  if (text === undefined) throw new NotFoundError(`Event ${eventId} has no ${field}`);
  return text;
}

export interface EventFilters {
  readonly eventType?: EventType | undefined;
  readonly toolName?: string | undefined;
  readonly minConfidence?: number | undefined;
  readonly maxConfidence?: number | undefined;
  /** Leave out `toolInput`/`toolOutput`. */
  readonly summary?: boolean | undefined;
}

/** Fields every stored event carries (checked by eventFromItem). */
const EVENT_FIELDS = { id: "string", sessionId: "string", eventType: "string", createdAt: "string" } as const;

export function eventFromItem(item: Record<string, unknown>, summary = false): AgentEvent {
  const {
    PK,
    SK,
    entity,
    ttl,
    toolInputJson,
    toolOutputJson,
    toolInputJsonUrl,
    toolOutputJsonUrl,
    toolInputJsonBytes,
    toolOutputJsonBytes,
    toolInputJsonRef,
    toolOutputJsonRef,
    reasoningRef,
    fingerprint,
    // Bookkeeping of OTel events with log records (otel-log-store.ts): not the event's.
    logCount,
    logBase,
    ...fields
  } = item;
  checkItem(EVENT_ENTITY, EVENT_FIELDS, item);
  // The declared fields were checked; the others are the event's own optional fields.
  const event = fields as Partial<AgentEvent> as AgentEvent;
  if (summary) return event;
  return {
    ...event,
    ...(typeof toolInputJson === "string" ? { toolInput: JSON.parse(toolInputJson) } : {}),
    ...(typeof toolOutputJson === "string" ? { toolOutput: JSON.parse(toolOutputJson) } : {}),
    // Too large to send inline (payload-store.ts INLINE_FIELD_BYTES): a presigned URL of the JSON, and its size.
    ...(typeof toolInputJsonUrl === "string"
      ? { toolInputUrl: toolInputJsonUrl, toolInputBytes: toolInputJsonBytes }
      : {}),
    ...(typeof toolOutputJsonUrl === "string"
      ? { toolOutputUrl: toolOutputJsonUrl, toolOutputBytes: toolOutputJsonBytes }
      : {}),
  };
}

/**
 * One page of a session's events, oldest first: a Query of the session's
 * partition (filters as a FilterExpression on that partition, never a scan).
 * Pages are filled up to `limit` matching events, or until the next event
 * would take the page past PAGE_BUDGET_BYTES of JSON (the first event of a
 * page always fits: fields over INLINE_FIELD_BYTES come as presigned URLs), so
 * no response nears Lambda's 6 MB limit; the cursor then continues after the
 * last event returned.
 */
export async function queryEvents(
  sessionId: string,
  filters: EventFilters,
  limit: number,
  startKey: Record<string, unknown> | undefined,
  nowMs = Date.now(),
): Promise<{ items: AgentEvent[]; lastKey: Record<string, unknown> | undefined }> {
  const names: Record<string, string> = { "#ttl": "ttl" };
  const values: Record<string, unknown> = {
    ":pk": sessionKey(sessionId).PK,
    ":events": EVENT_PREFIX,
    ":now": Math.floor(nowMs / 1000),
  };
  const conditions = ["(attribute_not_exists(#ttl) OR #ttl > :now)"];
  if (filters.eventType !== undefined) {
    values[":eventType"] = filters.eventType;
    conditions.push("eventType = :eventType");
  }
  if (filters.toolName !== undefined) {
    values[":toolName"] = filters.toolName;
    conditions.push("toolName = :toolName");
  }
  if (filters.minConfidence !== undefined) {
    values[":minConfidence"] = filters.minConfidence;
    conditions.push("confidence >= :minConfidence");
  }
  if (filters.maxConfidence !== undefined) {
    values[":maxConfidence"] = filters.maxConfidence;
    conditions.push("confidence <= :maxConfidence");
  }
  const items: AgentEvent[] = [];
  let pageBytes = 0;
  let lastKey = startKey;
  do {
    const page = await queryPage({
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :events)",
      FilterExpression: conditions.join(" AND "),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      startKey: lastKey,
      Limit: limit - items.length,
      ConsistentRead: true,
    });
    const raw = page.items;
    // Offloaded fields are fetched a few events at a time, so a page that fills up early has not downloaded
    // (up to 1 MiB per field of) the events it leaves to the next page.
    for (let start = 0; start < raw.length; start += RESOLVE_BATCH) {
      const resolved = await Promise.all(
        raw
          .slice(start, start + RESOLVE_BATCH)
          .map((item) => resolvePayloadRefs(item, filters.summary ? ["reasoning"] : undefined)),
      );
      for (const [offset, item] of resolved.entries()) {
        const event = eventFromItem(item, filters.summary);
        const bytes = Buffer.byteLength(JSON.stringify(event), "utf8");
        if (items.length > 0 && pageBytes + bytes > PAGE_BUDGET_BYTES) {
          const previous = raw[start + offset - 1];
          // Full: continue after the last event returned (the one before this in the page, or the previous page's last).
          return { items, lastKey: previous === undefined ? lastKey : { ...eventKey(sessionId, String(previous.id)) } };
        }
        items.push(event);
        pageBytes += bytes;
      }
    }
    lastKey = page.lastKey;
  } while (lastKey !== undefined && items.length < limit);
  return { items, lastKey };
}
