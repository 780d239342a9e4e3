/**
 * Batch ingestion: events grouped by session; a session's events are written
 * in as few transactions as DynamoDB allows (each at most
 * MAX_TRANSACTION_ITEMS items: the events, their idempotency records, one
 * update of the session's counters and, for an ended session, its rollups),
 * so counters stay exact and an event is acknowledged only once its
 * transaction committed. Each event may carry its own
 * idempotency key, recorded in the same transaction: a replayed event is
 * reported with its original id and written again nowhere.
 */
import { createHash } from "node:crypto";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { NotFoundError, UnprocessableError } from "../domain/errors.js";
import type { AgentEvent, NewEvent } from "../domain/event.js";
import { isId, newId } from "../domain/ids.js";
import type { Principal } from "../domain/principal.js";
import { MAX_TOOLS_PER_SESSION, OTHER_TOOL } from "../domain/rollup.js";
import { isFinal, type Session } from "../domain/session.js";
import { counterMapKey } from "./counter-keys.js";
import { documentClient, tableName } from "./dynamo-client.js";
import {
  assertOccurredAt,
  countedToolName,
  discardPayloadsIfNotStored,
  eventItem,
  storedAfter,
  toolCounter,
} from "./event-store.js";
import { IDEMPOTENCY_WINDOW_SECONDS } from "./idempotency-store.js";
import { eventIdempotencyKey, sessionKey } from "./keys.js";
import { expiryEpochSeconds } from "./retention.js";
import { rollupUpdates } from "./rollup-store.js";
import { getSession, rollupTargetOf } from "./session-store.js";
import { backoff, isTransactionConflict } from "./write-retry.js";

/** DynamoDB's limit on the items of one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;
const ATTEMPTS = 6;
/** Most retries of a transaction that collided with another one on the same session. */
const MAX_CONFLICT_RETRIES = 10;

export interface BatchEventInput {
  readonly index: number;
  readonly event: NewEvent;
  readonly idempotencyKey?: string | undefined;
}

/** A stored event (with its id), or the error that kept it out (mapped to HTTP by the handler). */
export type BatchEventResult =
  | { readonly index: number; readonly id: string; readonly replayed?: true }
  | { readonly index: number; readonly error: unknown };

function fingerprintOf(event: NewEvent): string {
  return createHash("sha256").update(JSON.stringify(event)).digest("hex");
}

/** The record of a per-event key (keys.ts `eventIdempotencyKey`), holding the event id it produced. */
async function readReplay(principal: Principal, key: string) {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: eventIdempotencyKey(principal.orgId, principal.environment, key),
      ConsistentRead: true,
    }),
  );
  return result.Item as { fingerprint?: string; eventId?: string } | undefined;
}

/** Transaction items of the rollup updates for late events touching `tools` distinct tools (per dimension: the day + each tool). */
function rollupItemCount(tools: number): number {
  return 2 * (1 + tools);
}

/**
 * Records one session's events: one read of the session, then as few
 * transactions as fit (each the largest run of pending events that, with
 * their idempotency records, the counter update and any rollups, stays within
 * MAX_TRANSACTION_ITEMS). Each committed transaction leaves the session state
 * the next one starts from without a read. Its condition holds only what the
 * write depends on — the status it was planned for (a final status never
 * changes again) and room in the per-tool counters for the tools it adds —
 * never the event count, so batches and single events racing each other are
 * all recorded; only when that condition fails is the session read again.
 * Replays are settled, collisions with concurrent transactions retried after a
 * jittered backoff (at most MAX_CONFLICT_RETRIES), other failed transactions
 * re-planned (at most ATTEMPTS); whatever cannot be stored gets its error (its
 * offloaded payloads are deleted), and what was committed keeps its id.
 */
async function writeSessionEvents(
  principal: Principal,
  sessionId: string,
  events: readonly BatchEventInput[],
  nowMs: number,
): Promise<BatchEventResult[]> {
  const results: BatchEventResult[] = [];
  let pending = [...events];
  // Ids (and any offloaded payloads) are fixed once, so a retried transaction writes the same items.
  const prepared = new Map<number, { event: AgentEvent; item: Record<string, unknown> }>();
  try {
    const now = new Date(nowMs).toISOString();
    const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);
    for (const input of events) {
      const event: AgentEvent = {
        ...input.event,
        id: newId("event", nowMs),
        orgId: principal.orgId,
        environment: principal.environment,
        createdAt: now,
      };
      prepared.set(input.index, { event, item: await eventItem(event, principal.retentionDays, ttl) });
    }
    let stored: Session | undefined;
    let failures = 0;
    let conflicts = 0;
    while (pending.length > 0) {
      stored ??= await getSession(principal, sessionId, nowMs);
      const late = isFinal(stored.status);
      // Maps, not plain objects: tool names are client text (`constructor`, `__proto__`, …).
      const toolCounts = {
        toolCalls: new Map(Object.entries(stored.toolCalls ?? {})),
        toolErrors: new Map(Object.entries(stored.toolErrors ?? {})),
      };
      const increments = new Map<string, { counter: "toolCalls" | "toolErrors"; tool: string; calls: number }>();
      const lateTools = new Map<string, { calls: number; errors: number }>();
      const written: { input: BatchEventInput; event: AgentEvent }[] = [];
      const items: NonNullable<TransactWriteCommandInput["TransactItems"]> = [];
      for (const input of pending) {
        const { event, item } = prepared.get(input.index) as { event: AgentEvent; item: Record<string, unknown> };
        const counter = toolCounter(event.eventType);
        const tool =
          counter !== undefined && event.toolName !== undefined
            ? countedToolName(toolCounts[counter], event.toolName)
            : undefined;
        const ownItems = input.idempotencyKey === undefined ? 1 : 2;
        const tools = lateTools.size + (tool !== undefined && !lateTools.has(tool) ? 1 : 0);
        const total = items.length + ownItems + 1 + (late ? rollupItemCount(tools) : 0);
        if (total > MAX_TRANSACTION_ITEMS) break;
        if (counter !== undefined && tool !== undefined) {
          toolCounts[counter].set(tool, (toolCounts[counter].get(tool) ?? 0) + 1);
          const entry = increments.get(`${counter}:${tool}`) ?? { counter, tool, calls: 0 };
          increments.set(`${counter}:${tool}`, { ...entry, calls: entry.calls + 1 });
          const previous = lateTools.get(tool) ?? { calls: 0, errors: 0 };
          lateTools.set(tool, {
            calls: previous.calls + (counter === "toolCalls" ? 1 : 0),
            errors: previous.errors + (counter === "toolErrors" ? 1 : 0),
          });
        }
        items.push({ Put: { TableName: tableName, Item: item, ConditionExpression: "attribute_not_exists(PK)" } });
        if (input.idempotencyKey !== undefined) {
          items.push({
            Put: {
              TableName: tableName,
              Item: {
                ...eventIdempotencyKey(principal.orgId, principal.environment, input.idempotencyKey),
                entity: "idempotencyRecord",
                fingerprint: fingerprintOf(input.event),
                eventId: event.id,
                ttl: Math.floor(nowMs / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
              },
              ConditionExpression: "attribute_not_exists(PK)",
            },
          });
        }
        written.push({ input, event });
      }
      // One event needs at most 7 items (itself, its key, the counter update, 4 rollups): never reached.
      if (written.length === 0) throw new Error(`An event of session ${sessionId} does not fit in a transaction`);
      const cost = written.reduce((sum, { input }) => sum + (input.event.estimatedCost ?? 0), 0);
      const names: Record<string, string> = { "#ttl": "ttl", "#status": "status" };
      const values: Record<string, unknown> = {
        ":n": written.length,
        ":cost": cost,
        ":now": now,
        ":ttl": ttl,
        ":status": stored.status,
      };
      if (increments.size > 0) values[":zero"] = 0;
      const sets = ["lastActivityAt = :now", "#ttl = :ttl"];
      const conditions = ["#status = :status"];
      [...increments.values()].forEach((increment, position) => {
        names[`#c${position}`] = increment.counter;
        names[`#t${position}`] = counterMapKey(increment.tool);
        values[`:i${position}`] = increment.calls;
        sets.push(`#c${position}.#t${position} = if_not_exists(#c${position}.#t${position}, :zero) + :i${position}`);
      });
      // Room for the tools this transaction adds to each counter (none is needed under OTHER_TOOL).
      for (const counter of ["toolCalls", "toolErrors"] as const) {
        const added = [...increments.values()].filter(
          (increment) =>
            increment.counter === counter &&
            increment.tool !== OTHER_TOOL &&
            !Object.hasOwn(stored?.[counter] ?? {}, increment.tool),
        ).length;
        if (added === 0) continue;
        names[`#room_${counter}`] = counter;
        values[`:room_${counter}`] = MAX_TOOLS_PER_SESSION - added;
        conditions.push(`size(#room_${counter}) <= :room_${counter}`);
      }
      const sessionUpdate = {
        Update: {
          TableName: tableName,
          Key: sessionKey(sessionId),
          UpdateExpression: `ADD eventCount :n, eventCost :cost SET ${sets.join(", ")}`,
          ConditionExpression: conditions.join(" AND "),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      };
      const rollups = late
        ? rollupUpdates(rollupTargetOf(principal, stored, nowMs), {
            counters: { events: written.length, eventCost: cost },
            tools: Object.fromEntries(lateTools),
          })
        : [];
      try {
        await documentClient.send(new TransactWriteCommand({ TransactItems: [sessionUpdate, ...items, ...rollups] }));
        results.push(...written.map(({ input, event }) => ({ index: input.index, id: event.id })));
        pending = pending.slice(written.length);
        stored = {
          ...stored,
          eventCount: stored.eventCount + written.length,
          eventCost: stored.eventCost + cost,
          lastActivityAt: now,
          toolCalls: Object.fromEntries(toolCounts.toolCalls),
          toolErrors: Object.fromEntries(toolCounts.toolErrors),
        };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        if (isTransactionConflict(error) && conflicts < MAX_CONFLICT_RETRIES) {
          await backoff(conflicts);
          conflicts += 1;
          continue;
        }
        failures += 1;
        if (failures >= ATTEMPTS) {
          throw new Error(`Session ${sessionId} kept changing while ${pending.length} events were recorded`);
        }
        // Which per-event idempotency keys of this transaction were already used? Settle those; retry the rest.
        const settled = new Set<number>();
        for (const { input } of written.filter(({ input: candidate }) => candidate.idempotencyKey !== undefined)) {
          const replay = await readReplay(principal, String(input.idempotencyKey));
          if (replay === undefined) continue;
          settled.add(input.index);
          if (replay.fingerprint === fingerprintOf(input.event)) {
            results.push({ index: input.index, id: String(replay.eventId), replayed: true });
          } else {
            results.push({
              index: input.index,
              error: new UnprocessableError("This idempotencyKey was already used with a different event"),
            });
          }
        }
        pending = pending.filter((input) => !settled.has(input.index));
        stored = undefined;
      }
    }
  } catch (error) {
    for (const input of pending) results.push({ index: input.index, error });
  }
  await discardUnstoredPayloads(sessionId, results, prepared);
  return results;
}

/** Deletes the offloaded payloads of every event of the batch that was not stored (refused, or a replay). */
async function discardUnstoredPayloads(
  sessionId: string,
  results: readonly BatchEventResult[],
  prepared: ReadonlyMap<number, { event: AgentEvent; item: Record<string, unknown> }>,
): Promise<void> {
  for (const result of results) {
    const candidate = prepared.get(result.index);
    if (candidate === undefined) continue;
    if ("error" in result)
      await discardPayloadsIfNotStored(sessionId, candidate.event.id, candidate.item, storedAfter(result.error));
    // A replay answers with the id stored the first time: this attempt's own event (and objects) was not stored.
    else if (result.replayed === true)
      await discardPayloadsIfNotStored(sessionId, candidate.event.id, candidate.item, "no");
  }
}

/**
 * Stores every valid event of a batch; each result says 201 (with the id)
 * only for an event whose transaction committed.
 */
export async function recordEventBatch(
  principal: Principal,
  inputs: readonly BatchEventInput[],
  nowMs = Date.now(),
): Promise<BatchEventResult[]> {
  const results: BatchEventResult[] = [];
  const bySession = new Map<string, BatchEventInput[]>();
  for (const input of inputs) {
    try {
      if (!isId("session", input.event.sessionId))
        throw new NotFoundError(`Session ${input.event.sessionId} not found`);
      assertOccurredAt(input.event, principal, nowMs);
      bySession.set(input.event.sessionId, [...(bySession.get(input.event.sessionId) ?? []), input]);
    } catch (error) {
      results.push({ index: input.index, error });
    }
  }
  const perSession = await Promise.all(
    [...bySession.entries()].map(([sessionId, events]) => writeSessionEvents(principal, sessionId, events, nowMs)),
  );
  results.push(...perSession.flat());
  return results.sort((a, b) => a.index - b.index);
}
