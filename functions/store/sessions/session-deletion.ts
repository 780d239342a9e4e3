/**
 * Deleting a session: its events and scores (batched deletes), then in one transaction
 * the session item and what the stream consumer counted of it into the
 * rollups (and, for an erasure job, the job's counters), leaving a tombstone
 * with the consumer's marks (session-tombstone.ts). If the consumer
 * counts more meanwhile, the transaction fails on the session's count version
 * and the whole step is repeated; an event written after its session is gone
 * is deleted by the consumer (functions/store/counting/stream-counting.ts). The session
 * item goes last, so a deletion that fails part-way is finished by another.
 */
import { deletionActorOf } from "../../domain/deletion-audit.js";
import { ConflictError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { Principal } from "../../domain/principal.js";
import { modelUsageOf, outcomeCounters, signedTallies, toolCounts } from "../../domain/rollup.js";
import { isFinal, type Session } from "../../domain/session.js";
import { conversationLeaveUpdate, conversationRunDelete } from "../conversations/conversation-items.js";
import { sweepScoresOfEmptyConversation } from "../conversations/conversation-score-sweep.js";
import { agentSummaryUpdate, type RollupChange, rollupUpdates } from "../counting/rollup-store.js";
import { deletionAuditPut } from "../deletion/deletion-audit-store.js";
import { traceRecordDeletion } from "../otel/trace-record-deletion.js";
import { deletePayloadsOf } from "../payloads/payload-store.js";
import { deleteScoresWithdrawing } from "../scores/score-withdrawal.js";
import { deleteAll } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { conversationRunKey, EVENT_PREFIX, SCORE_PREFIX, scoreCountKey, sessionKey } from "../table/keys.js";
import { deleteItem, keyOf, queryPages, type TransactItem, transact } from "../table/table-operations.js";
import { forgetSession } from "./session-access.js";
import { getSession, rollupTargetOf } from "./session-store.js";
import { tombstonePut } from "./session-tombstone.js";
import { finishToolMove } from "./session-tool-move.js";
import { TOOL_MOVE_ATTRIBUTE } from "./tool-move-record.js";

const DELETE_ATTEMPTS = 5;

/**
 * Deletes every item of a session whose sort key starts with `prefix`; resolves with how many there were. Events
 * go in plain batched deletes; scores with the withdrawal of what the stream consumer counted of them
 * (score-withdrawal.ts).
 */
async function deleteItemsOf(sessionId: string, prefix: typeof EVENT_PREFIX | typeof SCORE_PREFIX): Promise<number> {
  let deleted = 0;
  for await (const page of queryPages({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK, ":prefix": prefix },
    ProjectionExpression: "PK, SK",
    ConsistentRead: true,
  })) {
    if (prefix === SCORE_PREFIX) await deleteScoresWithdrawing(page.items.map(keyOf));
    else await deleteAll(page.items.map(keyOf));
    deleted += page.items.length;
  }
  return deleted;
}

/**
 * The rollup change that takes `session` back out of its day: exactly what the stream consumer has counted
 * into it (its start, its outcome, its counted events), which the session item records. A session written
 * before counting moved to the stream (no `rollupRetentionDays`) had its start counted when created and its
 * events and outcome when it ended.
 */
export function withdrawal(session: Session): RollupChange {
  const legacy = session.rollupRetentionDays === undefined;
  const startCounted = legacy || session.startCounted === true;
  const outcomeCounted = isFinal(session.status) && (legacy || session.outcomeCounted === true);
  const eventsCounted = !legacy || isFinal(session.status);
  const counters: Record<string, number> = { sessions: startCounted ? -1 : 0 };
  if (outcomeCounted && isFinal(session.status)) {
    for (const [name, value] of Object.entries(
      outcomeCounters({ ...session, status: session.status, eventCount: 0, eventCost: 0 }, -1),
    )) {
      counters[name] = value ?? 0;
    }
  }
  if (eventsCounted) {
    counters.events = -session.eventCount;
    counters.eventCost = -session.eventCost;
  }
  return {
    counters,
    ...(eventsCounted
      ? {
          tools: toolCounts(session.toolCalls, session.toolErrors, -1),
          models: signedTallies(modelUsageOf(session.modelUsage), -1),
        }
      : {}),
    ...(outcomeCounted && session.status === "failed" && session.failureReason !== undefined
      ? { failure: { reason: session.failureReason, count: -1 } }
      : {}),
  };
}

/**
 * A run leaving its conversation before its deletion: its membership deleted and its conversation's count withdrawn,
 * in a transaction of their own (the deletion's may already hold 99 items), conditioned on the membership: an attempt
 * that failed after this step does not withdraw the run twice. The last run's leaving sweeps the conversation's own
 * scores (an attempt repeated after a failed sweep sweeps again).
 */
async function leaveConversation(session: Session): Promise<void> {
  const { conversationId } = session;
  if (conversationId === undefined) return;
  try {
    await transact([conversationRunDelete(session.id), conversationLeaveUpdate({ ...session, conversationId })]);
  } catch (error) {
    // The membership already gone: this run left before (its conversation's scores may not be swept yet: below).
    // The summary gone (expired): only the membership is left.
    if (!isConditionFailure(error, 0)) {
      if (!isConditionFailure(error, 1)) throw error;
      await deleteItem(conversationRunKey(session.id));
      return;
    }
  }
  // The last run gone: the conversation's own scores go (conversation-score-sweep.ts).
  await sweepScoresOfEmptyConversation(session.orgId, session.environment, conversationId);
}

/**
 * An extra transaction item written with the deletion, given the events the session held (deleteSession): an
 * erasure job's counters, or the audit record of a deletion a caller asked for.
 */
export type DeletionReceipt = (session: Session, deletedEvents: number) => TransactItem;

/** The receipt of a session deletion asked for by `principal`: its audit record (deletion-audit-store.ts). */
export function auditedDeletion(principal: Principal, nowMs = Date.now()): DeletionReceipt {
  return (session, deletedEvents) =>
    deletionAuditPut({
      id: newId("audit", nowMs),
      orgId: session.orgId,
      environment: session.environment,
      action: "session.deleted",
      target: session.id,
      actor: deletionActorOf(principal),
      at: new Date(nowMs).toISOString(),
      deletedEvents,
    });
}

/**
 * Deletes a session of the principal's tenant with its events, its scores and its rollup
 * contribution. 404 when unknown, 403 when another tenant's.
 */
export async function deleteSession(
  principal: Principal,
  sessionId: string,
  options: { receipt?: DeletionReceipt; nowMs?: number } = {},
): Promise<Session> {
  const nowMs = options.nowMs ?? Date.now();
  // Events deleted by every attempt: an attempt that lost the race to the stream consumer has deleted its events.
  let deletedEvents = 0;
  for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
    let session = await getSession(principal, sessionId, nowMs);
    if (session.toolMove !== undefined) {
      // A move under way has tools still counted where the session was: they go where it is before it is withdrawn.
      await finishToolMove(principal, session, [], nowMs);
      session = await getSession(principal, sessionId, nowMs);
    }
    // The whole transaction is built before anything is deleted: a session whose withdrawal cannot be
    // computed is left whole. Once the events are gone the session item still stands (eventCount
    // unchanged), so a failure of the transaction leaves a session that a DELETE again finishes.
    const target = rollupTargetOf(session, nowMs);
    const legacy = session.rollupRetentionDays === undefined;
    const transactItems: TransactItem[] = [
      {
        Delete: {
          Key: sessionKey(sessionId),
          // What the stream consumer counted is what is withdrawn: it must not count more in between.
          ConditionExpression:
            "attribute_exists(PK) AND #status = :status AND attribute_not_exists(#toolMove) AND " +
            (session.countVersion === undefined ? "attribute_not_exists(countVersion)" : "countVersion = :version"),
          ExpressionAttributeNames: { "#status": "status", "#toolMove": TOOL_MOVE_ATTRIBUTE },
          ExpressionAttributeValues: {
            ":status": session.status,
            ...(session.countVersion === undefined ? {} : { ":version": session.countVersion }),
          },
        },
      },
      ...(legacy || session.startCounted === true
        ? [agentSummaryUpdate(target.tenant, session.agentName, -1, target.ttl)]
        : []),
      ...rollupUpdates(target, withdrawal(session)),
      // What was withdrawn, for a batch the stream consumer counts again after the deletion.
      tombstonePut(session, nowMs),
      ...(await traceRecordDeletion(session)),
    ];
    deletedEvents += await deleteItemsOf(sessionId, EVENT_PREFIX);
    await deleteItemsOf(sessionId, SCORE_PREFIX);
    // The events the session held: those deleted here, or — when another run of the same deletion deleted some
    // first (an erasure job's redelivered message, a retry after a crash half-way) — those the stream counted on
    // it, whichever is more; never more than it held.
    if (options.receipt !== undefined)
      transactItems.push(options.receipt(session, Math.max(deletedEvents, session.eventCount)));
    await deletePayloadsOf({ orgId: session.orgId, environment: session.environment, sessionId });
    await leaveConversation(session);
    try {
      await transact(transactItems);
      forgetSession(sessionId);
      // A score checks in its own transaction that its session exists: one written after the first sweep
      // and before the session went is found now, and none can be written after.
      await deleteItemsOf(sessionId, SCORE_PREFIX);
      // Then the session's count of scores (score-count.ts): nothing is left to count.
      await deleteItem(scoreCountKey(sessionKey(sessionId).PK));
      return session;
    } catch (error) {
      if (!isConditionFailure(error, 0)) throw error;
    }
  }
  throw new ConflictError(`Session ${sessionId} kept changing while it was being deleted; retry the request`);
}
