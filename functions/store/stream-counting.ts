/**
 * Counting the table's change stream into sessions, rollups and agent
 * summaries, exactly once (the plan is functions/domain/session-counting.ts).
 *
 * Per session of a run of stream records from one shard: read the session
 * (strongly consistent), plan the records above the shard's high-water mark,
 * then one transaction: the session's counters, bookkeeping and new mark
 * (conditional on the `countVersion` read, so nothing counted in between is
 * counted again) and the rollup and summary increments. A record whose
 * session is gone (deleted, expired) counts nothing; an event written to it
 * after the deletion is deleted here. A session one of whose counted events
 * offloaded a field to S3 is marked `hasPayloads` in the same update, so that
 * its expiry can take the payloads with it (functions/stream/expired-payloads.ts).
 */
import type { Environment } from "../domain/api-key.js";
import { FINAL_STATUSES, type FinalStatus, isFinal, type Session } from "../domain/session.js";
import {
  type CountedEvent,
  type CountingPlan,
  type CountingState,
  type EndedSession,
  planCounting,
  type SessionChange,
} from "../domain/session-counting.js";
import { deleteAll } from "./batch-operations.js";
import { isConditionFailure } from "./condition-failure.js";
import { counterMapKey } from "./counter-keys.js";
import type { Item } from "./entity.js";
import { type ItemKey, sessionIdOfPartition, sessionKey } from "./keys.js";
import { deletePayloadsOf, hasOffloadedFields } from "./payload-store.js";
import { agentSummaryUpdate, rollupUpdates } from "./rollup-store.js";
import { rollupTargetOf, sessionFromItem } from "./session-store.js";
import { getItem, type TransactItem, transact } from "./table-operations.js";
import { backoff, isTransactionConflict } from "./write-retry.js";

/** A stream record as counting needs it (images already unmarshalled). */
export interface ChangeRecord {
  readonly eventName: "INSERT" | "MODIFY" | "REMOVE";
  readonly sequence: string;
  readonly keys: Item;
  readonly newImage?: Item | undefined;
  readonly oldImage?: Item | undefined;
}

/** A session that reached a final status, with its counts once the run of records is counted. */
export interface SessionEnding {
  readonly session: Session;
  readonly ended: EndedSession;
}

/** Receives the session endings of a run before its counts are committed (at least once). */
export type EndingSink = (endings: readonly SessionEnding[]) => Promise<void>;

/** Attempts per session before its records are reported failed (the stream redelivers them). */
const ATTEMPTS = 6;
/**
 * Sessions counted at once within one run of records: a batch of 100 records under load spans dozens of sessions,
 * each a read and a transaction, and the shard's next batch waits for the slowest (the SDK's sockets: 50).
 */
const CONCURRENCY = 32;

function countedEvent(image: Item): CountedEvent {
  return {
    eventType: String(image.eventType),
    toolName: typeof image.toolName === "string" ? image.toolName : undefined,
    estimatedCost: typeof image.estimatedCost === "number" ? image.estimatedCost : undefined,
    createdAt: String(image.createdAt),
    ttl: typeof image.ttl === "number" ? image.ttl : undefined,
  };
}

function endedSession(image: Item): EndedSession {
  const optionalNumber = (value: unknown) => (typeof value === "number" ? value : undefined);
  return {
    status: image.status as FinalStatus,
    success: typeof image.success === "boolean" ? image.success : undefined,
    failureReason: typeof image.failureReason === "string" ? image.failureReason : undefined,
    estimatedCost: optionalNumber(image.estimatedCost),
    durationMs: optionalNumber(image.durationMs),
    promptTokens: optionalNumber(image.promptTokens),
    completionTokens: optionalNumber(image.completionTokens),
    totalTokens: optionalNumber(image.totalTokens),
  };
}

function isFinalStatus(value: unknown): value is FinalStatus {
  return (FINAL_STATUSES as readonly unknown[]).includes(value);
}

/** What a record means for counting, if anything (only session and event items of a session partition count). */
export function sessionChangeOf(record: ChangeRecord): { sessionId: string; change: SessionChange } | undefined {
  const sessionId = sessionIdOfPartition(String(record.keys.PK));
  if (sessionId === undefined || record.eventName === "REMOVE") return undefined;
  const { newImage, oldImage, sequence } = record;
  if (newImage === undefined) return undefined;
  if (newImage.entity === "event") {
    if (record.eventName === "INSERT")
      return { sessionId, change: { kind: "eventAdded", sequence, event: countedEvent(newImage) } };
    if (oldImage === undefined) return undefined;
    const before = countedEvent(oldImage);
    const after = countedEvent(newImage);
    if (
      before.eventType === after.eventType &&
      before.toolName === after.toolName &&
      before.estimatedCost === after.estimatedCost &&
      before.createdAt === after.createdAt
    ) {
      return undefined;
    }
    return { sessionId, change: { kind: "eventReplaced", sequence, before, after } };
  }
  if (newImage.entity !== "session") return undefined;
  if (record.eventName === "INSERT") return { sessionId, change: { kind: "sessionStarted", sequence } };
  if (oldImage?.status === "active" && isFinalStatus(newImage.status)) {
    return { sessionId, change: { kind: "sessionEnded", sequence, session: endedSession(newImage) } };
  }
  return undefined;
}

/** What counting already recorded on a session item. Items written before counting moved to the stream had their start (and, once ended, their outcome) counted on the request path. */
function countingStateOf(item: Item, shardId: string): CountingState {
  const legacy = typeof item.rollupRetentionDays !== "number";
  const marks = typeof item.countMarks === "object" && item.countMarks !== null ? (item.countMarks as Item) : {};
  const mark = Object.hasOwn(marks, shardId) ? marks[shardId] : undefined;
  const session = sessionFromItem(item);
  return {
    mark: typeof mark === "string" ? mark : undefined,
    startCounted: legacy || item.startCounted === true,
    outcomeCounted: (legacy && isFinal(session.status)) || item.outcomeCounted === true,
    toolCalls: session.toolCalls,
    toolErrors: session.toolErrors,
  };
}

/** The transaction items that apply `plan` to the session item read (`item`) and its rollups. */
function planTransaction(
  sessionId: string,
  item: Item,
  shardId: string,
  plan: CountingPlan,
  nowMs: number,
  offloaded: boolean,
): TransactItem[] {
  const session = sessionFromItem(item);
  const names: Record<string, string> = { "#shard": shardId, "#ttl": "ttl" };
  const values: Record<string, unknown> = {
    ":n": plan.eventCount,
    ":cost": plan.eventCost,
    ":one": 1,
    ":startCounted": plan.startCounted,
    ":outcomeCounted": plan.outcomeCounted,
  };
  const sets = ["startCounted = :startCounted", "outcomeCounted = :outcomeCounted"];
  if (offloaded && item.hasPayloads !== true) {
    values[":hasPayloads"] = true;
    sets.push("hasPayloads = :hasPayloads");
  }
  if (typeof item.countMarks === "object" && item.countMarks !== null) {
    values[":mark"] = plan.mark;
    sets.push("countMarks.#shard = :mark");
  } else {
    values[":marks"] = { [shardId]: plan.mark };
    sets.push("countMarks = :marks");
    delete names["#shard"];
  }
  if (plan.countsAsOf !== undefined && (session.countsAsOf === undefined || plan.countsAsOf > session.countsAsOf)) {
    values[":asOf"] = plan.countsAsOf;
    sets.push("countsAsOf = :asOf");
    if (plan.countsAsOf > session.lastActivityAt) sets.push("lastActivityAt = :asOf");
  }
  if (plan.expiresAt !== undefined && (typeof item.ttl !== "number" || plan.expiresAt > item.ttl)) {
    values[":ttl"] = plan.expiresAt;
    sets.push("#ttl = :ttl");
  }
  if (plan.toolIncrements.length > 0) values[":zero"] = 0;
  plan.toolIncrements.forEach((increment, position) => {
    names[`#c${position}`] = increment.counter;
    names[`#t${position}`] = counterMapKey(increment.toolName);
    values[`:i${position}`] = increment.by;
    sets.push(`#c${position}.#t${position} = if_not_exists(#c${position}.#t${position}, :zero) + :i${position}`);
  });
  const version = typeof item.countVersion === "number" ? item.countVersion : undefined;
  if (version !== undefined) values[":version"] = version;
  const target = rollupTargetOf(session, nowMs);
  const { counters, tools, failure } = plan.rollup;
  const changesRollups = Object.keys(counters).length > 0 || Object.keys(tools).length > 0 || failure !== undefined;
  const rollups = changesRollups ? rollupUpdates(target, plan.rollup) : [];
  return [
    {
      Update: {
        Key: sessionKey(sessionId),
        UpdateExpression: `ADD eventCount :n, eventCost :cost, countVersion :one SET ${sets.join(", ")}`,
        ConditionExpression: `attribute_exists(PK) AND ${version === undefined ? "attribute_not_exists(countVersion)" : "countVersion = :version"}`,
        ...(Object.keys(withoutUnused(names, sets)).length === 0
          ? {}
          : { ExpressionAttributeNames: withoutUnused(names, sets) }),
        ExpressionAttributeValues: values,
      },
    },
    ...(plan.agentSessions === 1 ? [agentSummaryUpdate(target.tenant, session.agentName, 1, target.ttl)] : []),
    ...rollups,
  ];
}

/** Expression names referenced by the SET clauses (DynamoDB refuses unused ones). */
function withoutUnused(names: Record<string, string>, sets: readonly string[]): Record<string, string> {
  const used = sets.join(" ");
  return Object.fromEntries(Object.entries(names).filter(([name]) => used.includes(name)));
}

/** An event written after its session was deleted: its key, and its tenant (for its offloaded payloads). */
interface OrphanCandidate {
  readonly key: ItemKey;
  readonly image: Item;
}

/** Deletes events written to a session that no longer exists, and the session's offloaded payloads left with them. */
async function deleteOrphans(sessionId: string, orphans: readonly OrphanCandidate[]): Promise<void> {
  await deleteAll(orphans.map(({ key }) => key));
  const offloaded = orphans.find(({ image }) => hasOffloadedFields(image));
  if (offloaded !== undefined) {
    await deletePayloadsOf({
      orgId: String(offloaded.image.orgId),
      environment: String(offloaded.image.environment) as Environment,
      sessionId,
    });
  }
}

/** Counts one session's changes of one shard; resolves once they are counted (or were before). */
async function countSession(
  shardId: string,
  sessionId: string,
  changes: readonly SessionChange[],
  orphans: readonly OrphanCandidate[],
  sink: EndingSink,
  nowMs: number,
  offloaded: boolean,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const item = await getItem(sessionKey(sessionId));
    if (item === undefined) {
      await deleteOrphans(sessionId, orphans);
      return;
    }
    const plan = planCounting(countingStateOf(item, shardId), changes);
    if (plan === undefined) return;
    if (plan.endings.length > 0) {
      const session = sessionFromItem(item);
      // The counts at the end: events of the run after it (late ones) are not part of it.
      const atEnd = plan.countedAtEnd ?? plan;
      const counted = {
        ...session,
        eventCount: session.eventCount + atEnd.eventCount,
        eventCost: session.eventCost + atEnd.eventCost,
      };
      await sink(plan.endings.map((ended) => ({ session: counted, ended })));
    }
    try {
      await transact(planTransaction(sessionId, item, shardId, plan, nowMs, offloaded));
      return;
    } catch (error) {
      // A conflict, or the session's count version moved (counted or deleted meanwhile): read and plan again.
      const retryable = isTransactionConflict(error) || isConditionFailure(error, 0);
      if (!retryable || attempt + 1 >= ATTEMPTS) throw error;
      await backoff(attempt + 1);
    }
  }
}

/**
 * Counts a run of records of one shard, in sequence order. Resolves with the sequence number of the first
 * record that could not be counted (every record from it on must be delivered again), or undefined.
 */
export async function countChangeRecords(
  shardId: string,
  records: readonly ChangeRecord[],
  sink: EndingSink,
  onSessionFailure: (sessionId: string, error: unknown) => void,
  nowMs = Date.now(),
): Promise<string | undefined> {
  const bySession = new Map<string, SessionChange[]>();
  const orphans = new Map<string, OrphanCandidate[]>();
  const firstSequence = new Map<string, string>();
  const offloaded = new Set<string>();
  for (const record of records) {
    const counted = sessionChangeOf(record);
    if (counted === undefined) continue;
    const list = bySession.get(counted.sessionId) ?? [];
    list.push(counted.change);
    bySession.set(counted.sessionId, list);
    if (!firstSequence.has(counted.sessionId)) firstSequence.set(counted.sessionId, record.sequence);
    if (record.newImage?.entity === "event" && hasOffloadedFields(record.newImage)) offloaded.add(counted.sessionId);
    if (counted.change.kind === "eventAdded" && record.newImage !== undefined) {
      const candidates = orphans.get(counted.sessionId) ?? [];
      candidates.push({ key: { PK: String(record.keys.PK), SK: String(record.keys.SK) }, image: record.newImage });
      orphans.set(counted.sessionId, candidates);
    }
  }
  const failed: string[] = [];
  const sessions = [...bySession.entries()];
  for (let start = 0; start < sessions.length; start += CONCURRENCY) {
    await Promise.all(
      sessions.slice(start, start + CONCURRENCY).map(async ([sessionId, changes]) => {
        try {
          await countSession(
            shardId,
            sessionId,
            changes,
            orphans.get(sessionId) ?? [],
            sink,
            nowMs,
            offloaded.has(sessionId),
          );
        } catch (error) {
          onSessionFailure(sessionId, error);
          failed.push(firstSequence.get(sessionId) as string);
        }
      }),
    );
  }
  if (failed.length === 0) return undefined;
  return failed.reduce((lowest, sequence) =>
    sequence.padStart(40, "0") < lowest.padStart(40, "0") ? sequence : lowest,
  );
}
