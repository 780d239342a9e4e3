/**
 * Counting the table's change stream into sessions, rollups and agent
 * summaries, exactly once (the plan is functions/domain/session-counting.ts),
 * aggregated over a whole batch of one shard.
 *
 * 1. The batch's sessions are read in one eventually consistent BatchGetItem
 *    (a stale read only costs a retry: every write below is conditional).
 * 2. Per session, the records above the shard's high-water mark are planned
 *    and written in one plain UpdateItem: counters, bookkeeping, the new mark,
 *    conditional on the `countVersion` read (nothing counted, deleted or moved
 *    in between). A session one of whose counted events offloaded a field to
 *    S3 is marked `hasPayloads` in the same update, so that its expiry can take
 *    the payloads with it (functions/stream/expired-payloads.ts). A session that
 *    is gone (deleted, expired) counts nothing; events written to it after the
 *    deletion are deleted here; its tombstone (session-tombstone.ts) tells which
 *    of the batch's changes its deletion had already withdrawn.
 * 3. Every change its session took in — now, or before (a batch delivered
 *    again) — owes its share to its rollup items (agent and user day, tool,
 *    failure reason, agent summary). The shares are summed per item across the
 *    batch's sessions and each distinct item written once, with per-shard
 *    marks for exactly once (functions/store/counting/rollup-flush.ts). A change's alert series counts (by its
 *    own time: functions/domain/series-counting.ts) join its share, for the facets the tenant's monitors watch
 *    (read once a minute per container, store/alerts/watched-facets.ts; a failed read fails the flush).
 *
 * Any failure of a session reports its first record as the batch's first
 * failure (records before it are done, rollups included); a failed rollup
 * flush reports the batch's first record (everything is delivered again; what
 * was written is recognised by the marks).
 */
import type { Environment } from "../../domain/api-key.js";
import { modelUsageOf, storedModelUsage } from "../../domain/rollup.js";
import { NOTHING_WATCHED, seriesCountsOfChange, type WatchedFacets } from "../../domain/series-counting.js";
import { type CountMove, FINAL_STATUSES, type FinalStatus, type Session } from "../../domain/session.js";
import {
  type CountedAtEnd,
  type CountedEvent,
  type CountingPlan,
  type CountingState,
  changeShares,
  type EndedSession,
  paddedSequence,
  planCounting,
  type SessionChange,
  stateBefore,
  type TokenField,
} from "../../domain/session-counting.js";
import { EVENT_USAGE_ATTRIBUTES } from "../../domain/session-totals.js";
import { TOKEN_USAGE_FIELDS, type TokenUsage } from "../../pricing/usage.js";
import { watchedFacets } from "../alerts/watched-facets.js";
import { deletePayloadsOf, hasOffloadedFields } from "../payloads/payload-store.js";
import { counterMapKey } from "../sessions/counter-keys.js";
import { rollupTargetOf, sessionFromItem } from "../sessions/session-store.js";
import { tombstoneCounters } from "../sessions/session-tombstone.js";
import { batchGetItems, deleteAll } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import type { Item } from "../table/entity.js";
import { type ItemKey, sessionIdOfPartition, sessionKey, sessionTombstoneKey } from "../table/keys.js";
import { getItem, type TransactItem, updateItem } from "../table/table-operations.js";
import { backoff } from "../table/write-retry.js";
import { flushRollups, type RollupShare } from "./rollup-flush.js";
import { agentSummaryUpdate, rollupUpdates } from "./rollup-store.js";
import { seriesUpdates } from "./series-updates.js";

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

/** An event image's `usage` map (only its numeric token types), if it has one. */
function usageOf(value: unknown): TokenUsage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const usage: Record<string, number> = {};
  for (const field of TOKEN_USAGE_FIELDS) {
    const count = (value as Item)[field];
    if (typeof count === "number") usage[field] = count;
  }
  return usage;
}

const COST_SOURCES: readonly unknown[] = ["reported", "table", "organisation", "unpriced"];

function countedEvent(image: Item): CountedEvent {
  return {
    eventType: String(image.eventType),
    toolName: typeof image.toolName === "string" ? image.toolName : undefined,
    estimatedCost: typeof image.estimatedCost === "number" ? image.estimatedCost : undefined,
    model: typeof image.model === "string" ? image.model : undefined,
    usage: usageOf(image.usage),
    costSource: COST_SOURCES.includes(image.costSource) ? (image.costSource as CountedEvent["costSource"]) : undefined,
    createdAt: String(image.createdAt),
    occurredAt: typeof image.occurredAt === "string" ? image.occurredAt : undefined,
    ttl: typeof image.ttl === "number" ? image.ttl : undefined,
  };
}

/** Whether two images of an event count the same (a replacement that changes none of it counts nothing). */
function countsAlike(before: CountedEvent, after: CountedEvent): boolean {
  return (
    before.eventType === after.eventType &&
    before.toolName === after.toolName &&
    before.estimatedCost === after.estimatedCost &&
    before.createdAt === after.createdAt &&
    before.model === after.model &&
    before.costSource === after.costSource &&
    TOKEN_USAGE_FIELDS.every((field) => before.usage?.[field] === after.usage?.[field]) &&
    (before.usage === undefined) === (after.usage === undefined)
  );
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
    completedAt: typeof image.completedAt === "string" ? image.completedAt : undefined,
  };
}

function isFinalStatus(value: unknown): value is FinalStatus {
  return (FINAL_STATUSES as readonly unknown[]).includes(value);
}

/** The session as counted when it ended: its stored counts plus what the run had counted before the end. */
function withCountsAtEnd(session: Session, atEnd: CountedAtEnd): Session {
  const sums: Partial<Record<(typeof EVENT_USAGE_ATTRIBUTES)[TokenField], number>> = {};
  for (const field of TOKEN_USAGE_FIELDS) {
    const attribute = EVENT_USAGE_ATTRIBUTES[field];
    const stored = session[attribute];
    // A token type nothing reported stays absent (the totals rule shows it null), as on the stored item.
    const sum = atEnd.usage[field] === 0 ? stored : (stored ?? 0) + atEnd.usage[field];
    if (sum !== undefined) sums[attribute] = sum;
  }
  return {
    ...session,
    ...sums,
    eventCount: session.eventCount + atEnd.eventCount,
    eventCost: session.eventCost + atEnd.eventCost,
    modelCalls: (session.modelCalls ?? 0) + atEnd.modelCalls,
    unpricedCalls: (session.unpricedCalls ?? 0) + atEnd.unpricedCalls,
  };
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
    if (countsAlike(before, after)) return undefined;
    return { sessionId, change: { kind: "eventReplaced", sequence, before, after } };
  }
  if (newImage.entity !== "session") return undefined;
  if (record.eventName === "INSERT") return { sessionId, change: { kind: "sessionStarted", sequence } };
  if (oldImage?.status === "active" && isFinalStatus(newImage.status)) {
    return { sessionId, change: { kind: "sessionEnded", sequence, session: endedSession(newImage) } };
  }
  return undefined;
}

/**
 * What counting already recorded on a session item, or on a deleted session's tombstone (the same attributes).
 * Items written before counting moved to the stream had their start (and, once ended, their outcome) counted
 * on the request path.
 */
function countingStateOf(item: Item, shardId: string): CountingState {
  const marks = typeof item.countMarks === "object" && item.countMarks !== null ? (item.countMarks as Item) : {};
  const mark = Object.hasOwn(marks, shardId) ? marks[shardId] : undefined;
  const legacy = isLegacy(item);
  return {
    mark: typeof mark === "string" ? mark : undefined,
    startCounted: legacy || item.startCounted === true,
    outcomeCounted: (legacy && isFinalStatus(item.status)) || item.outcomeCounted === true,
    toolCalls: tombstoneCounters(item.toolCalls),
    toolErrors: tombstoneCounters(item.toolErrors),
    models: modelUsageOf(item.modelUsage),
  };
}

/** A session written before counting moved to the stream (no `rollupRetentionDays`). */
function isLegacy(item: Item): boolean {
  return typeof item.rollupRetentionDays !== "number";
}

/** The UpdateItem that applies `plan` to the session item read (`item`): counters, bookkeeping, the shard's mark. */
function sessionUpdate(sessionId: string, item: Item, shardId: string, plan: CountingPlan, offloaded: boolean) {
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
  const adds = ["eventCount :n", "eventCost :cost", "countVersion :one"];
  const usageAdds: [string, number][] = [
    ...TOKEN_USAGE_FIELDS.map((field): [string, number] => [EVENT_USAGE_ATTRIBUTES[field], plan.usage[field]]),
    ["modelCalls", plan.modelCalls],
    ["unpricedCalls", plan.unpricedCalls],
  ];
  for (const [attribute, by] of usageAdds) {
    if (by === 0) continue;
    values[`:${attribute}`] = by;
    adds.push(`${attribute} :${attribute}`);
  }
  if (plan.modelUsage !== undefined) {
    values[":modelUsage"] = storedModelUsage(plan.modelUsage);
    sets.push("modelUsage = :modelUsage");
  }
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
  const used = withoutUnused(names, sets);
  return {
    Key: sessionKey(sessionId),
    UpdateExpression: `ADD ${adds.join(", ")} SET ${sets.join(", ")}`,
    ConditionExpression: `attribute_exists(PK) AND ${version === undefined ? "attribute_not_exists(countVersion)" : "countVersion = :version"}`,
    ...(Object.keys(used).length === 0 ? {} : { ExpressionAttributeNames: used }),
    ExpressionAttributeValues: values,
  };
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

/** Where a session's counting stands after its changes of the batch were written. */
interface SessionCounted {
  /** The session item as read before the write, or its tombstone; undefined when it is gone without one. */
  readonly recorded: Item | undefined;
  /** The shard's mark as read (changes at or below it were counted before this batch). */
  readonly markBefore: string | undefined;
  /** The shard's mark now: the changes at or below it are counted into the session (or were, before its deletion). */
  readonly markAfter: string | undefined;
}

/** Counts one session's changes of one shard into its item; resolves once they are counted (or were before). */
async function countSession(
  shardId: string,
  sessionId: string,
  changes: readonly SessionChange[],
  orphans: readonly OrphanCandidate[],
  sink: EndingSink,
  offloaded: boolean,
  read: Item | undefined,
): Promise<SessionCounted> {
  // The batch's read is eventually consistent: a session it missed is read again, strongly, before it counts as gone.
  let item = read ?? (await getItem(sessionKey(sessionId)));
  for (let attempt = 0; ; attempt++) {
    if (item === undefined) {
      await deleteOrphans(sessionId, orphans);
      const tombstone = await getItem(sessionTombstoneKey(sessionId));
      const mark = tombstone === undefined ? undefined : countingStateOf(tombstone, shardId).mark;
      return { recorded: tombstone, markBefore: mark, markAfter: mark };
    }
    const state = countingStateOf(item, shardId);
    const plan = planCounting(state, changes);
    if (plan === undefined) return { recorded: item, markBefore: state.mark, markAfter: state.mark };
    if (plan.endings.length > 0) {
      const session = sessionFromItem(item);
      // The counts at the end: events of the batch after it (late ones) are not part of it.
      const counted = withCountsAtEnd(session, plan.countedAtEnd ?? plan);
      await sink(plan.endings.map((ended) => ({ session: counted, ended })));
    }
    try {
      await updateItem(sessionUpdate(sessionId, item, shardId, plan, offloaded));
      return { recorded: item, markBefore: state.mark, markAfter: plan.mark };
    } catch (error) {
      // The session's count version moved (counted, moved or deleted meanwhile), or the read was stale: read and plan again.
      if (!isConditionFailure(error) || attempt + 1 >= ATTEMPTS) throw error;
      if (attempt > 0) await backoff(attempt);
      item = await getItem(sessionKey(sessionId));
    }
  }
}

/**
 * The rollup shares a session owes for the batch's changes below `limit`: those its counters took in (now or
 * before), each with the rollup items it adds to, as counted where the session was counted.
 */
function sessionShares(
  shardId: string,
  changes: readonly SessionChange[],
  counted: SessionCounted,
  limit: string | undefined,
  nowMs: number,
  watched: WatchedFacets,
): RollupShare[] {
  const { recorded, markBefore, markAfter } = counted;
  if (recorded === undefined || markAfter === undefined) return [];
  const owed = changes.filter((change) => {
    const sequence = paddedSequence(change.sequence);
    return sequence <= markAfter && (limit === undefined || sequence < limit);
  });
  if (owed.length === 0) return [];
  const moves = countMovesOf(recorded);
  const before = stateBefore(countingStateOf(recorded, shardId), isLegacy(recorded), owed);
  const bySequence = new Map(owed.map((change) => [paddedSequence(change.sequence), change]));
  return changeShares(before, owed).map((share) => {
    const where = countedUnder(recorded, moves, shardId, share.sequence);
    const target = rollupTargetOf(
      {
        orgId: String(recorded.orgId),
        environment: recorded.environment as Session["environment"],
        agentName: where.agentName,
        userId: where.userId,
        createdAt: where.createdAt,
        rollupRetentionDays:
          typeof recorded.rollupRetentionDays === "number" ? recorded.rollupRetentionDays : undefined,
      },
      nowMs,
    );
    const change = bySequence.get(share.sequence);
    const series =
      change === undefined
        ? []
        : seriesCountsOfChange(
            change,
            share.rollup.counters,
            { userId: where.userId, createdAt: where.createdAt },
            watched,
            nowMs,
          );
    return {
      sequence: share.sequence,
      appliedNow: markBefore === undefined || share.sequence > markBefore,
      updates: [
        ...rollupUpdates(target, share.rollup),
        ...(share.agentSessions === 1 ? [agentSummaryUpdate(target.tenant, where.agentName, 1, target.ttl)] : []),
        ...seriesUpdates(target.tenant, where.agentName, series, nowMs),
      ] satisfies TransactItem[],
    };
  });
}

/** The moves recorded on a session item or tombstone (session-revision.ts), oldest first; malformed ones skipped. */
function countMovesOf(recorded: Item): CountMove[] {
  if (!Array.isArray(recorded.countMoves)) return [];
  return recorded.countMoves.flatMap((move: unknown): CountMove[] => {
    if (typeof move !== "object" || move === null) return [];
    const { marks, agentName, userId, createdAt } = move as Record<string, unknown>;
    if (typeof marks !== "object" || marks === null) return [];
    if (typeof agentName !== "string" || typeof userId !== "string" || typeof createdAt !== "string") return [];
    return [{ marks: marks as Record<string, string>, agentName, userId, createdAt }];
  });
}

/**
 * Where the change of `shardId` at `sequence` was counted: under what the session was before the first move that
 * had already counted it (that move withdrew its share from there, whether or not the share had arrived), else
 * where it is now.
 */
function countedUnder(
  recorded: Item,
  moves: readonly CountMove[],
  shardId: string,
  sequence: string,
): Pick<CountMove, "agentName" | "userId" | "createdAt"> {
  for (const move of moves) {
    const mark = Object.hasOwn(move.marks, shardId) ? move.marks[shardId] : undefined;
    if (typeof mark === "string" && sequence <= mark) return move;
  }
  return {
    agentName: String(recorded.agentName),
    userId: String(recorded.userId),
    createdAt: String(recorded.createdAt),
  };
}

/** The tenant of a recorded session item or tombstone (`orgId`, `environment`), as a map key. */
function tenantKeyOf(recorded: Item | undefined): string {
  return recorded === undefined ? "" : `${String(recorded.orgId)}\u0000${String(recorded.environment)}`;
}

/** The watched facets of the tenants of the sessions counted, by tenantKeyOf. */
async function watchedFacetsOfTenants(counted: Iterable<SessionCounted>): Promise<Map<string, WatchedFacets>> {
  const tenants = new Map<string, Item>();
  for (const { recorded, markAfter } of counted) {
    if (recorded !== undefined && markAfter !== undefined) tenants.set(tenantKeyOf(recorded), recorded);
  }
  const watched = new Map<string, WatchedFacets>();
  await Promise.all(
    [...tenants].map(async ([key, recorded]) => {
      watched.set(key, await watchedFacets(String(recorded.orgId), recorded.environment as Environment));
    }),
  );
  return watched;
}

/** What a batch's counting wrote, for the consumer's log line. */
export interface BatchCounted {
  /** The sequence number of the first record that could not be counted (delivered again from it on), if any. */
  readonly failedAt: string | undefined;
  readonly sessions: number;
  readonly rollupItems: number;
}

/**
 * Counts a batch of records of one shard, in sequence order. Resolves with the sequence number of the first
 * record that could not be counted (every record from it on must be delivered again), or undefined, and what it wrote.
 */
export async function countBatch(
  shardId: string,
  records: readonly ChangeRecord[],
  sink: EndingSink,
  onSessionFailure: (sessionId: string, error: unknown) => void,
  nowMs = Date.now(),
): Promise<BatchCounted> {
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
  if (bySession.size === 0) return { failedAt: undefined, sessions: 0, rollupItems: 0 };
  const read = new Map<string, Item>();
  for (const item of await batchGetItems(
    [...bySession.keys()].map((sessionId) => sessionKey(sessionId)),
    { consistent: false },
  )) {
    const sessionId = sessionIdOfPartition(String(item.PK));
    if (sessionId !== undefined) read.set(sessionId, item);
  }
  const failed: string[] = [];
  const counted = new Map<string, SessionCounted>();
  const sessions = [...bySession.entries()];
  for (let start = 0; start < sessions.length; start += CONCURRENCY) {
    await Promise.all(
      sessions.slice(start, start + CONCURRENCY).map(async ([sessionId, changes]) => {
        try {
          counted.set(
            sessionId,
            await countSession(
              shardId,
              sessionId,
              changes,
              orphans.get(sessionId) ?? [],
              sink,
              offloaded.has(sessionId),
              read.get(sessionId),
            ),
          );
        } catch (error) {
          onSessionFailure(sessionId, error);
          failed.push(firstSequence.get(sessionId) as string);
        }
      }),
    );
  }
  const failedAt =
    failed.length === 0
      ? undefined
      : failed.reduce((lowest, sequence) => (paddedSequence(sequence) < paddedSequence(lowest) ? sequence : lowest));
  // Records from the first failure on are delivered again: their shares are written then.
  const limit = failedAt === undefined ? undefined : paddedSequence(failedAt);
  let rollupItems = 0;
  try {
    // What the batch's tenants' monitors watch (cached a minute): a failed read fails the flush, as a write would.
    const watched = await watchedFacetsOfTenants(counted.values());
    const shares = [...counted].flatMap(([sessionId, result]) =>
      sessionShares(
        shardId,
        bySession.get(sessionId) ?? [],
        result,
        limit,
        nowMs,
        watched.get(tenantKeyOf(result.recorded)) ?? NOTHING_WATCHED,
      ),
    );
    rollupItems = await flushRollups(shardId, shares);
  } catch (error) {
    onSessionFailure("(rollups)", error);
    return { failedAt: records[0]?.sequence, sessions: counted.size, rollupItems };
  }
  return { failedAt, sessions: counted.size, rollupItems };
}
