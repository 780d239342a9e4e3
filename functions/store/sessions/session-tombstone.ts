/**
 * A deleted session's tombstone (`SESSION#<id>` / `TOMBSTONE`): written in the
 * deletion's transaction with what the stream consumer had counted of the
 * session (its per-shard marks, its start/outcome flags and per-tool names) and
 * where it was counted (organisation, environment, agent, user, start day). A
 * batch delivered again after the deletion reads it to tell the changes the
 * deletion withdrew from the rollups (at or below the marks: their shares are
 * still owed to rollup items that had not received them) from those it never
 * counted. It expires after the stream's 24-hour retention, when no batch
 * can be delivered again.
 */
import type { Session } from "../../domain/session.js";
import { sessionTombstoneKey } from "../table/keys.js";
import type { TransactItem } from "../table/table-operations.js";
import { countersFromStored } from "./counter-keys.js";

export const SESSION_TOMBSTONE_ENTITY = "sessionTombstone";

/** Kept two days: longer than the stream's 24-hour retention, with DynamoDB TTL's own delay to spare. */
const TOMBSTONE_SECONDS = 2 * 24 * 60 * 60;

/**
 * A per-tool counter map as a list of `[name, count]` pairs: tool names are client text, and a map with a key
 * such as `constructor` cannot be marshalled by the document client.
 */
function storedCounters(counters: Readonly<Record<string, number>>): [string, number][] {
  return Object.entries(counters);
}

/** A per-tool counter map of a tombstone (or a session item's map), keyed by tool name, without a prototype. */
export function tombstoneCounters(stored: unknown): Record<string, number> {
  if (!Array.isArray(stored)) return countersFromStored(stored);
  const counts: Record<string, number> = Object.create(null);
  for (const pair of stored) {
    if (Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "number") counts[pair[0]] = pair[1];
  }
  return counts;
}

/** The transaction item that leaves `session`'s tombstone (replacing any earlier one of the same id). */
export function tombstonePut(session: Session, nowMs: number): TransactItem {
  return {
    Put: {
      Item: {
        ...sessionTombstoneKey(session.id),
        entity: SESSION_TOMBSTONE_ENTITY,
        id: session.id,
        orgId: session.orgId,
        environment: session.environment,
        agentName: session.agentName,
        userId: session.userId,
        createdAt: session.createdAt,
        status: session.status,
        ...(session.rollupRetentionDays === undefined ? {} : { rollupRetentionDays: session.rollupRetentionDays }),
        startCounted: session.startCounted === true,
        outcomeCounted: session.outcomeCounted === true,
        toolCalls: storedCounters(session.toolCalls),
        toolErrors: storedCounters(session.toolErrors),
        ...(session.modelUsage === undefined ? {} : { modelUsage: session.modelUsage }),
        countMarks: { ...(session.countMarks ?? {}) },
        ...(session.countMoves === undefined ? {} : { countMoves: session.countMoves }),
        ttl: Math.floor(nowMs / 1000) + TOMBSTONE_SECONDS,
      },
    },
  };
}
