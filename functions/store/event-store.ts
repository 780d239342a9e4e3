/**
 * Persistence of events. An event item lives in its session's partition
 * (`SESSION#<sessionId>` / `EVENT#<eventId>`) and is written in one
 * transaction with the session's counters (event count, event cost, per-tool
 * calls and errors), so the two never disagree. An event that arrives after
 * its session ended also updates the session's rollups in that transaction.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { GetCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { AtsError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../domain/errors.js";
import { type AgentEvent, type EventType, type NewEvent, occurredAtProblem } from "../domain/event.js";
import { isId, newId } from "../domain/ids.js";
import { LIMITS } from "../domain/limits.js";
import { ownsTenantData, type Principal } from "../domain/principal.js";
import { MAX_TOOLS_PER_SESSION, OTHER_TOOL } from "../domain/rollup.js";
import { isFinal, type Session } from "../domain/session.js";
import { logError } from "../runtime/log.js";
import { counterMapKey } from "./counter-keys.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { eventKey, sessionKey } from "./keys.js";
import { discardOffloadedFields, hasOffloadedFields, offloadLargeFields, resolvePayloadRefs } from "./payload-store.js";
import { expiryEpochSeconds, isExpired } from "./retention.js";
import { rollupUpdates } from "./rollup-store.js";
import { rollupTargetOf, sessionFromItem } from "./session-store.js";
import { backoff, isTransactionConflict } from "./write-retry.js";

export const EVENT_ENTITY = "event";

/** Serialized events in one page of the read API at most (the first event of a page always goes in). */
export const PAGE_BUDGET_BYTES = 4 * 1024 * 1024;
/** Events of a page whose offloaded fields are fetched from S3 at once. */
const RESOLVE_BATCH = 4;

/** Which per-tool counter of the session an event moves, if any. */
export function toolCounter(eventType: EventType): "toolCalls" | "toolErrors" | undefined {
  if (eventType === "tool_call") return "toolCalls";
  if (eventType === "error") return "toolErrors";
  return undefined;
}

/**
 * The stored item of an event: JSON payloads as text, and any of
 * `toolInput`/`toolOutput`/`reasoning` larger than the offload threshold
 * written to S3 first (the item keeps a pointer), so an item never nears
 * DynamoDB's 400 KB limit.
 */
export async function eventItem(
  event: AgentEvent,
  retentionDays: number,
  ttl: number,
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
  return { ...eventKey(event.sessionId, event.id), entity: EVENT_ENTITY, ...stored, ...payloads, ttl };
}

/** 400 when a client's `occurredAt` is too far in the future or older than retention. */
export function assertOccurredAt(input: NewEvent, principal: Principal, nowMs: number): void {
  if (input.occurredAt === undefined) return;
  const problem = occurredAtProblem(input.occurredAt, nowMs, principal.retentionDays, LIMITS.occurredAtFutureMs);
  if (problem !== undefined)
    throw new ValidationError(`Invalid occurredAt: ${problem}`, [{ path: "occurredAt", message: problem }]);
}

/** The tool name an event is counted under: its own, or OTHER_TOOL once the session tracks the maximum. */
export function countedToolName(counts: ReadonlyMap<string, number>, toolName: string): string {
  if (counts.has(toolName) || counts.size < MAX_TOOLS_PER_SESSION) return toolName;
  return OTHER_TOOL;
}

interface Plan {
  /** The session as last read; undefined before any read (the common, read-free path). */
  readonly stored?: Session;
  readonly toolName?: string | undefined;
}

/**
 * Records an event against a session of the principal's tenant. Sessions in
 * a final state still accept events (a client's late flush must not be lost).
 * Happy path: one transaction, no read.
 */
export async function createEvent(
  principal: Principal,
  input: NewEvent,
  nowMs = Date.now(),
  plannedUlid?: string,
): Promise<AgentEvent> {
  if (!isId("session", input.sessionId)) throw new NotFoundError(`Session ${input.sessionId} not found`);
  assertOccurredAt(input, principal, nowMs);
  const now = new Date(nowMs).toISOString();
  const event: AgentEvent = {
    ...input,
    id: plannedUlid === undefined ? newId("event", nowMs) : `evt_${plannedUlid}`,
    orgId: principal.orgId,
    environment: principal.environment,
    createdAt: now,
  };
  const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);
  const item = await eventItem(event, principal.retentionDays, ttl);
  try {
    return await writeEvent(principal, input, event, item, { now, nowMs, ttl, plannedUlid });
  } catch (error) {
    await discardPayloadsIfNotStored(input.sessionId, event.id, item, storedAfter(error));
    throw error;
  }
}

/**
 * Whether an event whose write failed with `failure` may be stored all the same: a refusal of the
 * service's own (an AtsError: unknown or foreign session, …) stored nothing; after any other failure
 * (a timeout, say) the transaction may have committed.
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

/** Most times the session is read again because it changed under the write (it ended; its tool list filled). */
const MAX_REPLANS = 4;
/** Most retries of a write that collided with another transaction on the same session. */
const MAX_CONFLICT_RETRIES = 10;

/**
 * The event's one transaction: its item, its session's counters (and, for a late event of an ended
 * session, the session's rollups). The session's condition holds only what the write depends on — the
 * tenant, the status it was planned for (a final status never changes again) and room in the per-tool
 * counters — never the event count, so events racing each other are all recorded.
 */
async function writeEvent(
  principal: Principal,
  input: NewEvent,
  event: AgentEvent,
  item: Record<string, unknown>,
  timing: { now: string; nowMs: number; ttl: number; plannedUlid: string | undefined },
): Promise<AgentEvent> {
  const { now, nowMs, ttl, plannedUlid } = timing;
  const counter = toolCounter(input.eventType);
  const eventPut = { Put: { TableName: tableName, Item: item, ConditionExpression: "attribute_not_exists(PK)" } };
  let plan: Plan = { toolName: counter === undefined ? undefined : input.toolName };
  let replans = 0;
  for (let conflicts = 0; ; ) {
    const names: Record<string, string> = { "#ttl": "ttl", "#environment": "environment", "#status": "status" };
    const values: Record<string, unknown> = {
      ":one": 1,
      ":cost": input.estimatedCost ?? 0,
      ":now": now,
      ":ttl": ttl,
      ":orgId": principal.orgId,
      ":environment": principal.environment,
      ":status": plan.stored?.status ?? "active",
    };
    const sets = ["lastActivityAt = :now", "#ttl = :ttl"];
    let condition = "attribute_exists(PK) AND orgId = :orgId AND #environment = :environment AND #status = :status";
    if (counter !== undefined && plan.toolName !== undefined) {
      names["#counter"] = counter;
      names["#tool"] = counterMapKey(plan.toolName);
      values[":zero"] = 0;
      sets.push("#counter.#tool = if_not_exists(#counter.#tool, :zero) + :one");
      if (plan.toolName !== OTHER_TOOL) {
        values[":maxTools"] = MAX_TOOLS_PER_SESSION;
        condition += " AND (attribute_exists(#counter.#tool) OR size(#counter) < :maxTools)";
      }
    }
    const late = plan.stored !== undefined && isFinal(plan.stored.status);
    const rollups =
      late && plan.stored !== undefined
        ? rollupUpdates(rollupTargetOf(principal, plan.stored, nowMs), {
            counters: { events: 1, eventCost: input.estimatedCost ?? 0 },
            ...(counter === undefined || plan.toolName === undefined
              ? {}
              : {
                  // A computed key defines an own property, even for `__proto__`.
                  tools: {
                    [plan.toolName]: {
                      calls: counter === "toolCalls" ? 1 : 0,
                      errors: counter === "toolErrors" ? 1 : 0,
                    },
                  },
                }),
          })
        : [];
    try {
      await documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: sessionKey(input.sessionId),
                UpdateExpression: `ADD eventCount :one, eventCost :cost SET ${sets.join(", ")}`,
                ConditionExpression: condition,
                ExpressionAttributeNames: names,
                ExpressionAttributeValues: values,
                ReturnValuesOnConditionCheckFailure: "ALL_OLD",
              },
            },
            eventPut,
            ...rollups,
          ],
        }),
      );
      return event;
    } catch (error) {
      if (isTransactionConflict(error) && conflicts < MAX_CONFLICT_RETRIES) {
        await backoff(conflicts);
        conflicts += 1;
        continue;
      }
      const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
      if (plannedUlid !== undefined && reasons?.[1]?.Code === "ConditionalCheckFailed") {
        // Written by an earlier attempt of this very request (same Idempotency-Key).
        const written = await getEventSummary(input.sessionId, event.id);
        if (written !== undefined) return written;
      }
      const sessionCheck = reasons?.[0];
      if (sessionCheck?.Code !== "ConditionalCheckFailed") throw error;
      if (replans >= MAX_REPLANS) {
        throw new ConflictError(
          `Session ${input.sessionId} kept changing while the event was recorded; retry the request`,
        );
      }
      replans += 1;
      plan = replan(principal, input, counter, sessionCheck.Item ? unmarshall(sessionCheck.Item) : undefined, nowMs);
    }
  }
}

/** Why the session's condition failed, and how to try again (or the error to answer with). */
function replan(
  principal: Principal,
  input: NewEvent,
  counter: "toolCalls" | "toolErrors" | undefined,
  item: Record<string, unknown> | undefined,
  nowMs: number,
): Plan {
  if (item === undefined || isExpired(item, nowMs)) throw new NotFoundError(`Session ${input.sessionId} not found`);
  const stored = sessionFromItem(item);
  if (!ownsTenantData(principal, stored)) {
    throw new ForbiddenError(`This API key has no access to session ${input.sessionId}`);
  }
  const toolName =
    counter === undefined || input.toolName === undefined
      ? undefined
      : countedToolName(new Map(Object.entries(stored[counter] ?? {})), input.toolName);
  return { stored, toolName };
}

/** One stored event without its payload fields (no S3 read), or undefined. */
export async function getEventSummary(sessionId: string, eventId: string): Promise<AgentEvent | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: eventKey(sessionId, eventId), ConsistentRead: true }),
  );
  if (result.Item === undefined) return undefined;
  const { toolInputJsonRef, toolOutputJsonRef, reasoningRef, ...item } = result.Item;
  return eventFromItem(item, true);
}

export interface EventFilters {
  readonly eventType?: EventType | undefined;
  readonly toolName?: string | undefined;
  readonly minConfidence?: number | undefined;
  readonly maxConfidence?: number | undefined;
  /** Leave out `toolInput`/`toolOutput`. */
  readonly summary?: boolean | undefined;
}

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
    ...fields
  } = item;
  const event = fields as unknown as AgentEvent;
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
    ":events": "EVENT#",
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
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :events)",
        FilterExpression: conditions.join(" AND "),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ExclusiveStartKey: lastKey,
        Limit: limit - items.length,
        ConsistentRead: true,
      }),
    );
    const raw = page.Items ?? [];
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
    lastKey = page.LastEvaluatedKey;
  } while (lastKey !== undefined && items.length < limit);
  return { items, lastKey };
}
