/**
 * Persistence of scores (issue 33). A score is one item in its target's partition (a session's or a conversation's,
 * score-item.ts), written in a transaction with a check that the target still exists in the caller's tenant
 * (score-targets.ts) and, for a new score, its place in the target's count (score-count.ts): a score never outlives a
 * target deleted while it was being written (a session's deletion removes its scores before and after its own
 * transaction, session-deletion.ts; a conversation's are swept when its last run goes, conversation-score-sweep.ts). Its id is the client's (`scr_` + ULID: a retry or
 * an edit replaces that score) or the service's; replacing keeps the first `createdAt`.
 */
import { ConflictError, invalidFieldsError, NotFoundError } from "../../domain/errors.js";
import { isId } from "../../domain/ids.js";
import { LIMITS } from "../../domain/limits.js";
import { ownsTenantData, type Principal } from "../../domain/principal.js";
import {
  authorOf,
  defaultSourceOf,
  type NewScore,
  type Score,
  scoreTargetOf,
  valueKindOf,
} from "../../domain/score.js";
import { scoreConfigProblem } from "../../domain/score-config.js";
import { getConversation } from "../conversations/conversation-reads.js";
import { cancellationItem, isConditionFailure } from "../table/condition-failure.js";
import { conversationScoreKey, SCORE_PREFIX, scoreKey } from "../table/keys.js";
import { expiryEpochSeconds } from "../table/retention.js";
import { getItem, queryPage, type TransactItem, transact } from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";
import { scoreConfigsOf } from "./score-config-cache.js";
import { scoreCountAdd } from "./score-count.js";
import { IN_SCORE_COUNT_ATTRIBUTE, SCORE_ENTITY, type ScoreRecord, scoreEntity, scoreItemKey } from "./score-item.js";
import { assertEventOfSession, type ScoredTarget, scoredTarget } from "./score-targets.js";
import { deleteScoresWithdrawing } from "./score-withdrawal.js";

/** Attempts of a score's transaction that lost a race (another transaction on the target, the score or its count). */
const WRITE_ATTEMPTS = 8;

/**
 * Checks that a score could go to this session (and event) of the principal's tenant, as recordScore would:
 * 404 unknown, expired or deleted; 403 another tenant's. For feedback tokens, minted for such a target.
 */
export async function assertScoreTarget(
  principal: Principal,
  sessionId: string,
  eventId: string | undefined,
  nowMs = Date.now(),
): Promise<void> {
  await scoredTarget(principal, { kind: "session", sessionId }, nowMs);
  if (eventId !== undefined) await assertEventOfSession(sessionId, eventId, nowMs);
}

function fullError(scored: ScoredTarget): ConflictError {
  const what =
    scored.target.kind === "session"
      ? `Session ${scored.target.sessionId}`
      : `Conversation ${scored.target.conversationId}`;
  return new ConflictError(
    `${what} has ${LIMITS.scoresPerTarget} scores, the most a session or conversation may hold; delete one, or replace one by sending its id`,
  );
}

/** The outcome of recording a score: the score as stored, and whether it replaced one. */
export interface RecordedScore {
  readonly score: Score;
  readonly replaced: boolean;
}

/**
 * Records a score on a session of the principal's tenant (and, with `eventId`, on one event of it) or on a
 * conversation of the principal's tenant: 404 when the target or event is unknown, expired or deleted, 403 when the
 * session is another tenant's (a conversation of another tenant is simply unknown) or when a feedback token names a
 * conversation. Sessions in a final state accept scores. A score with the id of an existing one of the same target
 * replaces it (an upsert), keeping its `createdAt`; 409 when the id names an item that is not a score of this tenant,
 * or when a new score would take the target past LIMITS.scoresPerTarget.
 */
export async function recordScore(
  principal: Principal,
  input: NewScore,
  scoreId: string,
  nowMs = Date.now(),
): Promise<RecordedScore> {
  const target = scoreTargetOf(input);
  const [scored, configs] = await Promise.all([
    scoredTarget(principal, target, nowMs),
    scoreConfigsOf(principal.orgId),
  ]);
  const problem = scoreConfigProblem(configs.get(input.name), input.value);
  if (problem !== undefined) throw invalidFieldsError("score", [{ path: "value", message: problem }]);
  const targetFields =
    target.kind === "session"
      ? { sessionId: target.sessionId, ...(target.eventId === undefined ? {} : { eventId: target.eventId }) }
      : { conversationId: target.conversationId };
  const key = scoreItemKey({
    id: scoreId,
    orgId: principal.orgId,
    environment: principal.environment,
    ...targetFields,
  });
  const [found] = await Promise.all([
    getItem(key, {
      projection: ["entity", "orgId", "environment", "createdAt", "counted", "countVersion", IN_SCORE_COUNT_ATTRIBUTE],
    }),
    target.kind === "session" && target.eventId !== undefined
      ? assertEventOfSession(target.sessionId, target.eventId, nowMs)
      : undefined,
  ]);
  const at = new Date(nowMs).toISOString();
  const ttl = scored.ttl ?? expiryEpochSeconds(nowMs, principal.retentionDays);
  let existing = found;
  for (let attempt = 0; ; attempt++) {
    if (
      existing !== undefined &&
      (existing.entity !== SCORE_ENTITY || !ownsTenantData(principal, tenantOf(existing)))
    ) {
      throw new ConflictError(`Score ${scoreId} cannot be written: its id is taken`);
    }
    const createdAt = typeof existing?.createdAt === "string" ? existing.createdAt : at;
    const score: Score = {
      id: scoreId,
      ...targetFields,
      orgId: principal.orgId,
      environment: principal.environment,
      agentName: scored.agentName,
      sessionDay: scored.dayOf(createdAt),
      name: input.name,
      valueKind: valueKindOf(input.value),
      value: input.value,
      ...(input.comment === undefined ? {} : { comment: input.comment }),
      source: input.source ?? defaultSourceOf(principal),
      author: authorOf(principal),
      createdAt,
      updatedAt: at,
    };
    try {
      const version = typeof existing?.countVersion === "number" ? existing.countVersion : undefined;
      const record = {
        score,
        ttl,
        countVersion: (version ?? 0) + 1,
        counted: existing?.counted,
        rollupRetentionDays: scored.rollupRetentionDays,
        // A new score takes a place in its target's count; a replacement keeps what the score it replaces had.
        inScoreCount: existing === undefined || existing[IN_SCORE_COUNT_ATTRIBUTE] === true,
      };
      await transact(scoreWrite(principal, scored, record, existing === undefined ? null : version));
      return { score, replaced: existing !== undefined };
    } catch (error) {
      if (isConditionFailure(error, 0)) throw scored.notFound();
      if (existing === undefined && isConditionFailure(error, 2) && !isConditionFailure(error, 1)) {
        throw fullError(scored);
      }
      if (isConditionFailure(error, 1)) {
        // Written (or deleted) by another request since the read: again, as a replacement of what is there now.
        existing = cancellationItem(error, 1);
      } else if (!isTransactionConflict(error)) throw error;
      if (attempt + 1 >= WRITE_ATTEMPTS) {
        throw new ConflictError(`Score ${scoreId} kept being written concurrently; retry the request`);
      }
      if (isTransactionConflict(error)) await backoff(attempt + 1);
    }
  }
}

/**
 * The transaction of a score: the target checked (it exists in the caller's tenant: a target deleted meanwhile is
 * a 404, and no score is left behind), then the score put: a new one where none is, or a replacement of this
 * tenant's score of the same id (never any other item) at the count version read (`replacedVersion`; null for a
 * new score), so the answer's 201 / 200 and `createdAt` are exact even when two requests write the same score at
 * once, and what the stream consumer counted of it (`counted`, carried over) is never lost; a new score also takes
 * its place in the target's count, refused past the limit (score-count.ts).
 */
function scoreWrite(
  principal: Principal,
  scored: ScoredTarget,
  record: ScoreRecord,
  replacedVersion: number | undefined | null,
): TransactItem[] {
  const replacing = replacedVersion !== null;
  const versionValues = typeof replacedVersion === "number" ? { ":version": replacedVersion } : {};
  const versionCondition =
    typeof replacedVersion === "number" ? "countVersion = :version" : "attribute_not_exists(countVersion)";
  const tenantValues = { ":org": principal.orgId, ":env": principal.environment };
  const tenantNames = { "#environment": "environment" };
  return [
    scored.check,
    {
      Put: {
        Item: scoreEntity.toItem(record),
        ...(replacing
          ? {
              ConditionExpression: `#entity = :score AND orgId = :org AND #environment = :env AND ${versionCondition}`,
              ExpressionAttributeNames: { ...tenantNames, "#entity": "entity" },
              ExpressionAttributeValues: { ...tenantValues, ":score": SCORE_ENTITY, ...versionValues },
            }
          : { ConditionExpression: "attribute_not_exists(PK)" }),
        ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const,
      },
    },
    ...(replacing ? [] : [scoreCountAdd(scored.key.PK, record.ttl)]),
  ];
}

function tenantOf(item: Record<string, unknown>) {
  return { orgId: String(item.orgId), environment: String(item.environment) };
}

/**
 * One page of a target's scores (its partition: a session's or a conversation summary's), oldest first (by id: a
 * ULID, so by creation time for the service's ids).
 */
export async function queryScores(
  partitionKey: string,
  limit: number,
  startKey: Record<string, unknown> | undefined,
  nowMs = Date.now(),
): Promise<{ items: Score[]; lastKey: Record<string, unknown> | undefined }> {
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :scores)",
    FilterExpression: "attribute_not_exists(#ttl) OR #ttl > :now",
    ExpressionAttributeNames: { "#ttl": "ttl" },
    ExpressionAttributeValues: {
      ":pk": partitionKey,
      ":scores": SCORE_PREFIX,
      ":now": Math.floor(nowMs / 1000),
    },
    startKey,
    Limit: limit,
    ConsistentRead: true,
  });
  return { items: page.items.map((item) => scoreEntity.fromItem(item)), lastKey: page.lastKey };
}

/** A target's first `limit` scores, and whether it has more (GET /api/sdk/sessions/{id}, …/conversations/{id}). */
export async function firstScoresOf(
  partitionKey: string,
  limit: number,
  nowMs = Date.now(),
): Promise<{ scores: Score[]; truncated: boolean }> {
  const page = await queryScores(partitionKey, limit + 1, undefined, nowMs);
  return {
    scores: page.items.slice(0, limit),
    truncated: page.items.length > limit || page.lastKey !== undefined,
  };
}

/** Deletes one score of a session of the principal's tenant: 404 when there is no such score. */
export async function deleteScore(
  principal: Principal,
  sessionId: string,
  scoreId: string,
  nowMs = Date.now(),
): Promise<void> {
  await scoredTarget(principal, { kind: "session", sessionId }, nowMs);
  const missing = new NotFoundError(`Score ${scoreId} not found in session ${sessionId}`);
  if (!isId("score", scoreId)) throw missing;
  // What the stream consumer counted of it is withdrawn in the same transaction (score-withdrawal.ts).
  const deleted = await deleteScoresWithdrawing([scoreKey(sessionId, scoreId)]);
  if (deleted === 0) throw missing;
}

/**
 * Deletes one score of a conversation of the principal's tenant: 404 when the conversation (in this tenant) or the
 * score is unknown. Its count is withdrawn in the same transaction, as a session score's.
 */
export async function deleteConversationScore(
  principal: Principal,
  conversationId: string,
  scoreId: string,
  nowMs = Date.now(),
): Promise<void> {
  await getConversation(principal, conversationId, nowMs);
  const missing = new NotFoundError(`Score ${scoreId} not found in conversation ${conversationId}`);
  if (!isId("score", scoreId)) throw missing;
  const key = conversationScoreKey(principal.orgId, principal.environment, conversationId, scoreId);
  if ((await deleteScoresWithdrawing([key])) === 0) throw missing;
}
