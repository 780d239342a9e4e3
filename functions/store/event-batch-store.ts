/**
 * Batch ingestion: events grouped by session, each group written in
 * transactions of up to GROUP_SIZE events together with one update of the
 * session's counters (so counters stay exact and an event is acknowledged
 * only once its transaction committed). Each event may carry its own
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
import { isFinal, type Session } from "../domain/session.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { assertOccurredAt, countedToolName, eventItem, toolCounter } from "./event-store.js";
import { IDEMPOTENCY_WINDOW_SECONDS, idempotencyKey } from "./idempotency-store.js";
import { sessionKey } from "./keys.js";
import { expiryEpochSeconds } from "./retention.js";
import { rollupUpdates } from "./rollup-store.js";
import { getSession, rollupTargetOf } from "./session-store.js";

/** Events per transaction: with their idempotency records and a session's rollups, well under 100 items. */
export const GROUP_SIZE = 25;
const ATTEMPTS = 6;

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

/** The per-event key's record: `IDEMPOTENCY#<orgId>#event:<key>`, holding the event id it produced. */
function eventIdempotencyKey(orgId: string, key: string) {
  return idempotencyKey(orgId, `event:${key}`);
}

async function readReplay(orgId: string, key: string) {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: eventIdempotencyKey(orgId, key), ConsistentRead: true }),
  );
  return result.Item as { fingerprint?: string; eventId?: string } | undefined;
}

/** What {@link writeGroup} leaves: each event's result, and the session as its transaction left it. */
interface GroupOutcome {
  readonly results: BatchEventResult[];
  /**
   * The session after the last committed transaction, derived without a read
   * (counts, tool counters, status): the next group of the same session starts
   * from it instead of reading the session again.
   */
  readonly session: Session;
}

/**
 * Records one session's events (up to GROUP_SIZE) in one transaction, retrying what a race or replay leaves.
 * `known`: the session as the previous group of this batch left it (the first attempt trusts it; its
 * transaction's condition on the event count catches anything that changed since, and retries re-read).
 */
async function writeGroup(
  principal: Principal,
  sessionId: string,
  group: readonly BatchEventInput[],
  nowMs: number,
  known: Session | undefined,
): Promise<GroupOutcome> {
  const results: BatchEventResult[] = [];
  let current = known;
  let pending = [...group];
  const now = new Date(nowMs).toISOString();
  const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);
  // Ids (and any offloaded payloads) are fixed once, so a retried transaction writes the same items.
  const prepared = new Map<number, { event: AgentEvent; item: Record<string, unknown> }>();
  for (const input of group) {
    const event: AgentEvent = {
      ...input.event,
      id: newId("event", nowMs),
      orgId: principal.orgId,
      environment: principal.environment,
      createdAt: now,
    };
    prepared.set(input.index, { event, item: await eventItem(event, principal.retentionDays, ttl) });
  }
  for (let attempt = 0; attempt < ATTEMPTS && pending.length > 0; attempt++) {
    const stored: Session =
      attempt === 0 && current !== undefined ? current : await getSession(principal, sessionId, nowMs);
    current = stored;
    const toolCounts = { toolCalls: { ...stored.toolCalls }, toolErrors: { ...stored.toolErrors } };
    const increments = new Map<string, { counter: "toolCalls" | "toolErrors"; tool: string; calls: number }>();
    const lateTools: Record<string, { calls: number; errors: number }> = {};
    const written: { input: BatchEventInput; event: AgentEvent }[] = [];
    const items: NonNullable<TransactWriteCommandInput["TransactItems"]> = [];
    for (const input of pending) {
      const { event, item } = prepared.get(input.index) as { event: AgentEvent; item: Record<string, unknown> };
      const counter = toolCounter(event.eventType);
      if (counter !== undefined && event.toolName !== undefined) {
        const tool = countedToolName(toolCounts[counter], event.toolName);
        toolCounts[counter][tool] = (toolCounts[counter][tool] ?? 0) + 1;
        const entry = increments.get(`${counter}:${tool}`) ?? { counter, tool, calls: 0 };
        increments.set(`${counter}:${tool}`, { ...entry, calls: entry.calls + 1 });
        const late = lateTools[tool] ?? { calls: 0, errors: 0 };
        lateTools[tool] = {
          calls: late.calls + (counter === "toolCalls" ? 1 : 0),
          errors: late.errors + (counter === "toolErrors" ? 1 : 0),
        };
      }
      items.push({ Put: { TableName: tableName, Item: item, ConditionExpression: "attribute_not_exists(PK)" } });
      if (input.idempotencyKey !== undefined) {
        items.push({
          Put: {
            TableName: tableName,
            Item: {
              ...eventIdempotencyKey(principal.orgId, input.idempotencyKey),
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
    const cost = pending.reduce((sum, input) => sum + (input.event.estimatedCost ?? 0), 0);
    const names: Record<string, string> = { "#ttl": "ttl", "#status": "status" };
    const values: Record<string, unknown> = {
      ":n": pending.length,
      ":cost": cost,
      ":now": now,
      ":ttl": ttl,
      ":seen": stored.eventCount,
      ":status": stored.status,
    };
    if (increments.size > 0) values[":zero"] = 0;
    const sets = ["lastActivityAt = :now", "#ttl = :ttl"];
    [...increments.values()].forEach((increment, position) => {
      names[`#c${position}`] = increment.counter;
      names[`#t${position}`] = increment.tool;
      values[`:i${position}`] = increment.calls;
      sets.push(`#c${position}.#t${position} = if_not_exists(#c${position}.#t${position}, :zero) + :i${position}`);
    });
    const sessionUpdate = {
      Update: {
        TableName: tableName,
        Key: sessionKey(sessionId),
        UpdateExpression: `ADD eventCount :n, eventCost :cost SET ${sets.join(", ")}`,
        ConditionExpression: "eventCount = :seen AND #status = :status",
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
    const rollups = isFinal(stored.status)
      ? rollupUpdates(rollupTargetOf(principal, stored, nowMs), {
          counters: { events: pending.length, eventCost: cost },
          tools: lateTools,
        })
      : [];
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: [sessionUpdate, ...items, ...rollups] }));
      results.push(...written.map(({ input, event }) => ({ index: input.index, id: event.id })));
      current = {
        ...stored,
        eventCount: stored.eventCount + pending.length,
        eventCost: stored.eventCost + cost,
        lastActivityAt: now,
        toolCalls: toolCounts.toolCalls,
        toolErrors: toolCounts.toolErrors,
      };
      pending = [];
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      // Which per-event idempotency keys were already used? Settle those events; retry the rest.
      const settled = new Set<number>();
      for (const input of pending.filter((candidate) => candidate.idempotencyKey !== undefined)) {
        const replay = await readReplay(principal.orgId, String(input.idempotencyKey));
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
    }
  }
  if (pending.length > 0 || current === undefined) {
    throw new Error(`Session ${sessionId} kept changing while ${pending.length} events were recorded`);
  }
  return { results, session: current };
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
  await Promise.all(
    [...bySession.entries()].map(async ([sessionId, events]) => {
      // One read of the session per batch: each group's transaction leaves the state the next one starts from.
      let session: Session | undefined;
      for (let start = 0; start < events.length; start += GROUP_SIZE) {
        const group = events.slice(start, start + GROUP_SIZE);
        try {
          const outcome = await writeGroup(principal, sessionId, group, nowMs, session);
          results.push(...outcome.results);
          session = outcome.session;
        } catch (error) {
          session = undefined;
          for (const input of group) results.push({ index: input.index, error });
        }
      }
    }),
  );
  return results.sort((a, b) => a.index - b.index);
}
