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
 * The items are built here; the caller adds its own (e.g. the trace record) and runs the transaction.
 */
import type { JsonObject } from "../../domain/json.js";
import type { CountMove, Session } from "../../domain/session.js";
import { agentSummaryUpdate, type RollupChange, rollupUpdates } from "../counting/rollup-store.js";
import { sessionKey, sessionStatusKeys, sessionTimelineKeys, tenant } from "../table/keys.js";
import type { TransactItem } from "../table/table-operations.js";
import { withdrawal } from "./session-deletion.js";
import { rollupTargetOf, SESSION_METADATA_ATTRIBUTE } from "./session-store.js";

/** What changes of a session (absent: unchanged). */
export interface SessionRevision {
  readonly name?: string | undefined;
  /** The new metadata, whole. */
  readonly metadata?: JsonObject | undefined;
  readonly agentName?: string | undefined;
  readonly userId?: string | undefined;
  /** When the session started (UTC ISO): it orders the session in listings and names its rollup day. */
  readonly createdAt?: string | undefined;
}

function negated(change: RollupChange): RollupChange {
  const counters = Object.fromEntries(Object.entries(change.counters).map(([name, value]) => [name, -(value ?? 0)]));
  const tools = Object.fromEntries(
    Object.entries(change.tools ?? {}).map(([name, counts]) => [
      name,
      { calls: -counts.calls, errors: -counts.errors },
    ]),
  );
  return {
    counters,
    tools,
    ...(change.failure === undefined ? {} : { failure: { ...change.failure, count: -change.failure.count } }),
  };
}

/** Whether a rollup change changes anything (an empty one would create empty day items). */
function isEmpty(change: RollupChange): boolean {
  const tools = Object.values(change.tools ?? {});
  return (
    Object.values(change.counters).every((value) => (value ?? 0) === 0) &&
    tools.every((counts) => counts.calls === 0 && counts.errors === 0) &&
    change.failure === undefined
  );
}

/** Whether the session's start was counted into its agent's summary (as the deletion reads it). */
function startCounted(session: Session): boolean {
  return session.rollupRetentionDays === undefined || session.startCounted === true;
}

/**
 * The transaction items of a revision of `session` as read (strongly consistent): the session's update —
 * conditioned on its status and, when its agent, user or start changes, on its count version, which it advances —
 * and the rollup and summary moves. Empty when the revision changes nothing.
 */
export function revisionItems(session: Session, revision: SessionRevision, nowMs: number): TransactItem[] {
  const agentName =
    revision.agentName !== undefined && revision.agentName !== session.agentName ? revision.agentName : undefined;
  const userId = revision.userId !== undefined && revision.userId !== session.userId ? revision.userId : undefined;
  const createdAt =
    revision.createdAt !== undefined && revision.createdAt !== session.createdAt ? revision.createdAt : undefined;
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
  if (sets.length === 0) return [];
  let condition = "attribute_exists(PK) AND #orgId = :orgId AND #environment = :environment AND #status = :status";
  let update = `SET ${sets.join(", ")}`;
  if (moves) {
    names["#countVersion"] = "countVersion";
    values[":one"] = 1;
    update += " ADD #countVersion :one";
    if (session.countVersion === undefined) condition += " AND attribute_not_exists(#countVersion)";
    else {
      values[":version"] = session.countVersion;
      condition += " AND #countVersion = :version";
    }
  }
  const items: TransactItem[] = [
    {
      Update: {
        Key: sessionKey(session.id),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  if (!moves) return items;
  const before = rollupTargetOf(session, nowMs);
  const after = rollupTargetOf(revised, nowMs);
  const counted = withdrawal(session);
  // A dimension moves when its agent (or user) or its day changes.
  const dayMoves = before.day !== after.day;
  const dimensions = [
    ...(agentName === undefined && !dayMoves ? [] : ["AGENT" as const]),
    ...(userId === undefined && !dayMoves ? [] : ["USER" as const]),
  ];
  if (!isEmpty(counted)) {
    items.push(...rollupUpdates(before, counted, dimensions), ...rollupUpdates(after, negated(counted), dimensions));
  }
  if (agentName !== undefined && startCounted(session)) {
    const summaryTenant = tenant(session.orgId, session.environment);
    items.push(
      agentSummaryUpdate(summaryTenant, session.agentName, -1, before.ttl),
      agentSummaryUpdate(summaryTenant, agentName, 1, after.ttl),
    );
  }
  return items;
}
