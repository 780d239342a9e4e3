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
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../domain/errors.js";
import { type AgentEvent, type EventType, type NewEvent, occurredAtProblem } from "../domain/event.js";
import { isId, newId } from "../domain/ids.js";
import { LIMITS } from "../domain/limits.js";
import { ownsTenantData, type Principal } from "../domain/principal.js";
import { MAX_TOOLS_PER_SESSION, OTHER_TOOL } from "../domain/rollup.js";
import { isFinal, type Session } from "../domain/session.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { eventKey, sessionKey } from "./keys.js";
import { offloadLargeFields, resolvePayloadRefs } from "./payload-store.js";
import { expiryEpochSeconds, isExpired } from "./retention.js";
import { rollupUpdates } from "./rollup-store.js";
import { rollupTargetOf, sessionFromItem } from "./session-store.js";

export const EVENT_ENTITY = "event";
const ATTEMPTS = 5;

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
export function countedToolName(counts: Readonly<Record<string, number>>, toolName: string): string {
  if (toolName in counts || Object.keys(counts).length < MAX_TOOLS_PER_SESSION) return toolName;
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
  const counter = toolCounter(input.eventType);
  const eventPut = {
    Put: {
      TableName: tableName,
      Item: await eventItem(event, principal.retentionDays, ttl),
      ConditionExpression: "attribute_not_exists(PK)",
    },
  };

  let plan: Plan = { toolName: counter === undefined ? undefined : input.toolName };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
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
      names["#tool"] = plan.toolName;
      values[":zero"] = 0;
      sets.push("#counter.#tool = if_not_exists(#counter.#tool, :zero) + :one");
      if (plan.stored === undefined) {
        values[":maxTools"] = MAX_TOOLS_PER_SESSION;
        condition += " AND (attribute_exists(#counter.#tool) OR size(#counter) < :maxTools)";
      }
    }
    if (plan.stored !== undefined) {
      values[":seen"] = plan.stored.eventCount;
      condition += " AND eventCount = :seen";
    }
    const late = plan.stored !== undefined && isFinal(plan.stored.status);
    const rollups =
      late && plan.stored !== undefined
        ? rollupUpdates(rollupTargetOf(principal, plan.stored, nowMs), {
            counters: { events: 1, eventCost: input.estimatedCost ?? 0 },
            ...(counter === undefined || plan.toolName === undefined
              ? {}
              : {
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
      const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
      if (plannedUlid !== undefined && reasons?.[1]?.Code === "ConditionalCheckFailed") {
        // Written by an earlier attempt of this very request (same Idempotency-Key).
        const written = await getEventSummary(input.sessionId, event.id);
        if (written !== undefined) return written;
      }
      const sessionCheck = reasons?.[0];
      if (sessionCheck?.Code !== "ConditionalCheckFailed") throw error;
      plan = replan(principal, input, counter, sessionCheck.Item ? unmarshall(sessionCheck.Item) : undefined, nowMs);
    }
  }
  throw new ConflictError(`Session ${input.sessionId} kept changing while the event was recorded; retry the request`);
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
      : countedToolName(stored[counter] ?? {}, input.toolName);
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
  const { PK, SK, entity, ttl, toolInputJson, toolOutputJson, ...fields } = item;
  const event = fields as unknown as AgentEvent;
  if (summary) return event;
  return {
    ...event,
    ...(typeof toolInputJson === "string" ? { toolInput: JSON.parse(toolInputJson) } : {}),
    ...(typeof toolOutputJson === "string" ? { toolOutput: JSON.parse(toolOutputJson) } : {}),
  };
}

/**
 * One page of a session's events, oldest first: a Query of the session's
 * partition (filters as a FilterExpression on that partition, never a scan).
 * Pages are filled up to `limit` matching events.
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
    const resolved = await Promise.all(
      (page.Items ?? []).map((item) => resolvePayloadRefs(item, filters.summary ? ["reasoning"] : undefined)),
    );
    items.push(...resolved.map((item) => eventFromItem(item, filters.summary)));
    lastKey = page.LastEvaluatedKey;
  } while (lastKey !== undefined && items.length < limit);
  return { items, lastKey };
}
