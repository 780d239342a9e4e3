/**
 * Revising a started session: its name and metadata, its agent and user, and when it started. A session is
 * counted (by the stream consumer, functions/store/counting/stream-counting.ts) into the day rollups of its agent and
 * its user (the day it started) and into its agent's summary, so a new agent, user or day moves exactly what
 * was counted of it — its start, its events, its tools, its outcome, as the session item records them
 * (session-deletion.ts `withdrawal`) — out of the old rollups and into the new ones, in the transaction that
 * changes the session (with its index keys, which hold its agent, user and start). That
 * transaction is conditioned on the session's count version (the consumer adds to it in every write), so the
 * consumer never counts under the old agent what was moved, nor the move under stale counts: whichever
 * writes second re-reads and plans again.
 *
 * A move fits whatever the session holds: the session's update, the caller's items (`reserved`), the day,
 * duration and failure items of each side of each dimension moved (at most 2 × 2 × 3 = 12), the agent's model
 * items of each side (up to 2 × 6, when the session counted model calls) and the agent summaries (2) come first; then as many of its tools as fit in DynamoDB's 100 items (each tool 2 items per
 * dimension moved: out of the old rollup, into the new). The tools left over (a session holds up to 41 names:
 * 20 per counter and `(other)`, domain/rollup.ts MAX_TOOLS_PER_SESSION) are recorded on the session as its
 * `toolMove` and carried by the next transactions (tool-move-record.ts, session-tool-move.ts): 18–21 tools in the
 * move's own transaction when both dimensions move, 24 per step after it, so 41 names take 2 transactions.
 *
 * The items are built here; the caller adds its own (e.g. the trace record) and runs the transaction.
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "../../domain/json.js";
import type { Principal } from "../../domain/principal.js";
import { isZeroTally, signedTallies } from "../../domain/rollup.js";
import type { CountMove, Session, ToolMove, ToolMovePlace } from "../../domain/session.js";
import { agentSummaryUpdate, type RollupChange, type RollupTarget, rollupUpdates } from "../counting/rollup-store.js";
import { type RollupDimension, sessionKey, sessionStatusKeys, sessionTimelineKeys, tenant } from "../table/keys.js";
import type { TransactItem } from "../table/table-operations.js";
import { withdrawal } from "./session-deletion.js";
import { assertSessionStart, rollupTargetOf, SESSION_METADATA_ATTRIBUTE } from "./session-store.js";
import { itemsPerTool, MAX_TRANSACT_ITEMS, TOOL_MOVE_ATTRIBUTE, toolShareItems } from "./tool-move-record.js";

/** What changes of a session (absent: unchanged). */
export interface SessionRevision {
  readonly name?: string | undefined;
  /** The new metadata, whole. */
  readonly metadata?: JsonObject | undefined;
  readonly agentName?: string | undefined;
  readonly userId?: string | undefined;
  /** When the session started (UTC ISO): it orders the session in listings and names its rollup day. */
  readonly createdAt?: string | undefined;
  /** The conversation a session without one joins (its membership and count are the caller's items). */
  readonly conversationId?: string | undefined;
}

/** A change without its tools, negated (its models too). */
function negated(change: RollupChange): RollupChange {
  const counters = Object.fromEntries(Object.entries(change.counters).map(([name, value]) => [name, -(value ?? 0)]));
  return {
    counters,
    ...(change.models === undefined ? {} : { models: signedTallies(change.models, -1) }),
    ...(change.failure === undefined ? {} : { failure: { ...change.failure, count: -change.failure.count } }),
  };
}

/** Whether a rollup change without tools changes anything (an empty one would create empty day items). */
function isEmpty(change: RollupChange): boolean {
  return (
    Object.values(change.counters).every((value) => (value ?? 0) === 0) &&
    [...(change.models ?? new Map()).values()].every(isZeroTally) &&
    change.failure === undefined
  );
}

/** What was counted of each tool (calls, errors), from a withdrawal's negative counts; tools at 0 left out. */
function countedTools(change: RollupChange): ToolMove["tools"] {
  return Object.entries(change.tools ?? {})
    .filter(([, counts]) => counts.calls !== 0 || counts.errors !== 0)
    .map(([name, counts]) => [name, -counts.calls, -counts.errors] as const);
}

function placeOf(target: RollupTarget): ToolMovePlace {
  return { agentName: target.agentName, userId: target.userId, day: target.day, ttl: target.ttl };
}

/** Whether the session's start was counted into its agent's summary (as the deletion reads it). */
function startCounted(session: Session): boolean {
  return session.rollupRetentionDays === undefined || session.startCounted === true;
}

/** A revision's transaction, and the tools of its move that did not fit in it (carried after it). */
export interface RevisionPlan {
  /** The revision's transaction items (without the caller's); empty when it changes nothing. */
  readonly items: TransactItem[];
  /** The move's tools left for the next transactions (recorded on the session by `items`), if any. */
  readonly toolMove: ToolMove | undefined;
}

/**
 * The transaction items of a revision of `session` as read (strongly consistent): the session's update —
 * conditioned on its status and, when its agent, user or start changes, on its count version, which it advances,
 * and on no earlier move being under way — and the rollup and summary moves, within MAX_TRANSACT_ITEMS with the
 * caller's `reserved` items. A new start is held to the rules of a new session's `startedAt` (400 otherwise:
 * within the organisation's retention, at most 5 minutes ahead).
 */
export function planRevision(
  principal: Principal,
  session: Session,
  revision: SessionRevision,
  nowMs: number,
  reserved = 0,
): RevisionPlan {
  const agentName =
    revision.agentName !== undefined && revision.agentName !== session.agentName ? revision.agentName : undefined;
  const userId = revision.userId !== undefined && revision.userId !== session.userId ? revision.userId : undefined;
  const createdAt =
    revision.createdAt !== undefined && revision.createdAt !== session.createdAt ? revision.createdAt : undefined;
  if (createdAt !== undefined) assertSessionStart(principal, createdAt, nowMs);
  const moves = agentName !== undefined || userId !== undefined || createdAt !== undefined;
  const names: Record<string, string> = {
    "#orgId": "orgId",
    "#environment": "environment",
    "#status": "status",
  };
  const values: Record<string, unknown> = {
    ":orgId": session.orgId,
    ":environment": session.environment,
    ":status": session.status,
  };
  const sets: string[] = [];
  const assign = (attribute: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    sets.push(`#${attribute} = :${attribute}`);
  };
  if (revision.name !== undefined && revision.name !== session.name) assign("name", revision.name);
  if (revision.metadata !== undefined) assign(SESSION_METADATA_ATTRIBUTE, JSON.stringify(revision.metadata));
  if (revision.conversationId !== undefined && session.conversationId === undefined) {
    assign("conversationId", revision.conversationId);
  }
  if (agentName !== undefined) assign("agentName", agentName);
  if (userId !== undefined) assign("userId", userId);
  if (createdAt !== undefined) assign("createdAt", createdAt);
  const revised: Session = {
    ...session,
    agentName: agentName ?? session.agentName,
    userId: userId ?? session.userId,
    createdAt: createdAt ?? session.createdAt,
  };
  if (moves) {
    for (const [attribute, value] of Object.entries({
      ...sessionTimelineKeys(revised),
      ...sessionStatusKeys(revised, revised.status),
    })) {
      assign(attribute, value);
    }
  }
  const marks = session.countMarks ?? {};
  if (moves && Object.keys(marks).length > 0) {
    // Where it was counted until now, for a batch delivered again (stream-counting.ts `countedUnder`).
    const move: CountMove = {
      marks: { ...marks },
      agentName: session.agentName,
      userId: session.userId,
      createdAt: session.createdAt,
    };
    names["#countMoves"] = "countMoves";
    values[":noMoves"] = [];
    values[":move"] = [move];
    sets.push("#countMoves = list_append(if_not_exists(#countMoves, :noMoves), :move)");
  }
  if (sets.length === 0) return { items: [], toolMove: undefined };
  let condition = "attribute_exists(PK) AND #orgId = :orgId AND #environment = :environment AND #status = :status";
  const sessionUpdate = (adds: string): TransactItem => ({
    Update: {
      Key: sessionKey(session.id),
      UpdateExpression: `SET ${sets.join(", ")}${adds}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  });
  if (!moves) return { items: [sessionUpdate("")], toolMove: undefined };
  names["#countVersion"] = "countVersion";
  names["#toolMove"] = TOOL_MOVE_ATTRIBUTE;
  values[":one"] = 1;
  condition += " AND attribute_not_exists(#toolMove)";
  if (session.countVersion === undefined) condition += " AND attribute_not_exists(#countVersion)";
  else {
    values[":version"] = session.countVersion;
    condition += " AND #countVersion = :version";
  }
  const before = rollupTargetOf(session, nowMs);
  const after = rollupTargetOf(revised, nowMs);
  const counted = withdrawal(session);
  // A dimension moves when its agent (or user) or its day changes.
  const dayMoves = before.day !== after.day;
  const dimensions: RollupDimension[] = [
    ...(agentName === undefined && !dayMoves ? [] : ["AGENT" as const]),
    ...(userId === undefined && !dayMoves ? [] : ["USER" as const]),
  ];
  const rollups: TransactItem[] = [];
  const { tools: _tools, ...untooled } = counted;
  if (!isEmpty(untooled)) {
    rollups.push(
      ...rollupUpdates(before, untooled, dimensions),
      ...rollupUpdates(after, negated(untooled), dimensions),
    );
  }
  if (agentName !== undefined && startCounted(session)) {
    const summaryTenant = tenant(session.orgId, session.environment);
    rollups.push(
      agentSummaryUpdate(summaryTenant, session.agentName, -1, before.ttl),
      agentSummaryUpdate(summaryTenant, agentName, 1, after.ttl),
    );
  }
  // The tools last: as many as fit beside the session's update, the rollups above and the caller's items.
  const tools = dimensions.length === 0 ? [] : countedTools(counted);
  const room = MAX_TRANSACT_ITEMS - reserved - 1 - rollups.length;
  const fitting = dimensions.length === 0 ? 0 : Math.max(0, Math.floor(room / itemsPerTool(dimensions)));
  const move = { from: placeOf(before), to: placeOf(after), dimensions };
  rollups.push(...toolShareItems(session, move, tools.slice(0, fitting)));
  const toolMove: ToolMove | undefined =
    tools.length > fitting ? { id: randomUUID(), ...move, tools: tools.slice(fitting), done: 0 } : undefined;
  if (toolMove !== undefined) {
    values[":toolMove"] = toolMove;
    sets.push("#toolMove = :toolMove");
  }
  return { items: [sessionUpdate(" ADD #countVersion :one"), ...rollups], toolMove };
}
