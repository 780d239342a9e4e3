/**
 * Persistence of scores (issue 33). A score is one item in its session's partition (score-item.ts), written
 * in a transaction with a check that the session still exists in the caller's tenant: a score never
 * outlives a session deleted while it was being written (the deletion removes the session's scores before
 * and after its own transaction, session-deletion.ts). Its id is the client's (`scr_` + ULID: a retry or
 * an edit replaces that score) or the service's; replacing keeps the first `createdAt`.
 */
import { ConflictError, invalidFieldsError, NotFoundError } from "../../domain/errors.js";
import { isId } from "../../domain/ids.js";
import { foreignSessionError, ownsTenantData, type Principal } from "../../domain/principal.js";
import { dayOf } from "../../domain/rollup.js";
import { authorOf, defaultSourceOf, type NewScore, type Score, valueKindOf } from "../../domain/score.js";
import { scoreConfigProblem } from "../../domain/score-config.js";
import { EVENT_ENTITY } from "../events/event-store.js";
import { cancellationItem, isConditionFailure } from "../table/condition-failure.js";
import { eventKey, SCORE_PREFIX, scoreKey, sessionKey } from "../table/keys.js";
import { expiryEpochSeconds, isExpired } from "../table/retention.js";
import { getItem, queryPage, transact } from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";
import { scoreConfigsOf } from "./score-config-cache.js";
import { SCORE_ENTITY, type ScoreRecord, scoreEntity } from "./score-item.js";
import { deleteScoresWithdrawing } from "./score-withdrawal.js";

/** What a score needs of its session: its tenant, agent, start and expiry. */
interface ScoredSession {
  readonly orgId: string;
  readonly environment: string;
  readonly agentName: string;
  readonly createdAt: string;
  readonly ttl: number | undefined;
  readonly rollupRetentionDays: number | undefined;
}

/** Attempts of a score's transaction that lost a race (another transaction on the session or the score). */
const WRITE_ATTEMPTS = 8;

const notFound = (sessionId: string) => new NotFoundError(`Session ${sessionId} not found`);

/** The session a score goes to: 404 unknown, expired or deleted; 403 another tenant's. */
async function scoredSession(principal: Principal, sessionId: string, nowMs: number): Promise<ScoredSession> {
  if (!isId("session", sessionId)) throw notFound(sessionId);
  const item = await getItem(sessionKey(sessionId), {
    projection: ["entity", "orgId", "environment", "agentName", "createdAt", "ttl", "rollupRetentionDays"],
  });
  if (item === undefined || isExpired(item, nowMs) || typeof item.orgId !== "string") throw notFound(sessionId);
  const session = {
    orgId: item.orgId,
    environment: String(item.environment),
    agentName: String(item.agentName),
    createdAt: String(item.createdAt),
    ttl: typeof item.ttl === "number" ? item.ttl : undefined,
    rollupRetentionDays: typeof item.rollupRetentionDays === "number" ? item.rollupRetentionDays : undefined,
  };
  if (!ownsTenantData(principal, session)) throw foreignSessionError(principal, sessionId);
  return session;
}

/** 404 unless the event is one of the session's (and not expired). */
async function assertEventOfSession(sessionId: string, eventId: string, nowMs: number): Promise<void> {
  const missing = () => new NotFoundError(`Event ${eventId} not found in session ${sessionId}`);
  if (!isId("event", eventId)) throw missing();
  const item = await getItem(eventKey(sessionId, eventId), { projection: ["entity", "ttl"] });
  if (item === undefined || item.entity !== EVENT_ENTITY || isExpired(item, nowMs)) throw missing();
}

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
  await scoredSession(principal, sessionId, nowMs);
  if (eventId !== undefined) await assertEventOfSession(sessionId, eventId, nowMs);
}

/** The outcome of recording a score: the score as stored, and whether it replaced one. */
export interface RecordedScore {
  readonly score: Score;
  readonly replaced: boolean;
}

/**
 * Records a score on a session of the principal's tenant (and, with `eventId`, on one event of it): 404 when
 * the session or event is unknown, expired or deleted, 403 when the session is another tenant's. Sessions in
 * a final state accept scores. A score with the id of an existing one replaces it (an upsert), keeping its
 * `createdAt`; 409 when the id names an item that is not a score of this tenant.
 */
export async function recordScore(
  principal: Principal,
  input: NewScore,
  scoreId: string,
  nowMs = Date.now(),
): Promise<RecordedScore> {
  const [session, configs] = await Promise.all([
    scoredSession(principal, input.sessionId, nowMs),
    scoreConfigsOf(principal.orgId),
  ]);
  const problem = scoreConfigProblem(configs.get(input.name), input.value);
  if (problem !== undefined) throw invalidFieldsError("score", [{ path: "value", message: problem }]);
  const [found] = await Promise.all([
    getItem(scoreKey(input.sessionId, scoreId), {
      projection: ["entity", "orgId", "environment", "createdAt", "counted", "countVersion"],
    }),
    input.eventId === undefined ? undefined : assertEventOfSession(input.sessionId, input.eventId, nowMs),
  ]);
  const at = new Date(nowMs).toISOString();
  const ttl = session.ttl ?? expiryEpochSeconds(nowMs, principal.retentionDays);
  let existing = found;
  for (let attempt = 0; ; attempt++) {
    if (
      existing !== undefined &&
      (existing.entity !== SCORE_ENTITY || !ownsTenantData(principal, tenantOf(existing)))
    ) {
      throw new ConflictError(`Score ${scoreId} cannot be written: its id is taken`);
    }
    const score: Score = {
      id: scoreId,
      sessionId: input.sessionId,
      ...(input.eventId === undefined ? {} : { eventId: input.eventId }),
      orgId: principal.orgId,
      environment: principal.environment,
      agentName: session.agentName,
      sessionDay: dayOf(session.createdAt),
      name: input.name,
      valueKind: valueKindOf(input.value),
      value: input.value,
      ...(input.comment === undefined ? {} : { comment: input.comment }),
      source: input.source ?? defaultSourceOf(principal),
      author: authorOf(principal),
      createdAt: typeof existing?.createdAt === "string" ? existing.createdAt : at,
      updatedAt: at,
    };
    try {
      const version = typeof existing?.countVersion === "number" ? existing.countVersion : undefined;
      const record = {
        score,
        ttl,
        countVersion: (version ?? 0) + 1,
        counted: existing?.counted,
        rollupRetentionDays: session.rollupRetentionDays,
      };
      await transact(scoreWrite(principal, record, existing === undefined ? null : version));
      return { score, replaced: existing !== undefined };
    } catch (error) {
      if (isConditionFailure(error, 0)) throw notFound(input.sessionId);
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
 * The transaction of a score: the session checked (it exists in the caller's tenant: a session deleted meanwhile is
 * a 404, and no score is left behind), then the score put: a new one where none is, or a replacement of this
 * tenant's score of the same id (never any other item) at the count version read (`replacedVersion`; null for a
 * new score), so the answer's 201 / 200 and `createdAt` are exact even when two requests write the same score at
 * once, and what the stream consumer counted of it (`counted`, carried over) is never lost.
 */
function scoreWrite(principal: Principal, record: ScoreRecord, replacedVersion: number | undefined | null) {
  const { score } = record;
  const replacing = replacedVersion !== null;
  const versionValues = typeof replacedVersion === "number" ? { ":version": replacedVersion } : {};
  const versionCondition =
    typeof replacedVersion === "number" ? "countVersion = :version" : "attribute_not_exists(countVersion)";
  const tenantValues = { ":org": principal.orgId, ":env": principal.environment };
  const tenantNames = { "#environment": "environment" };
  return [
    {
      ConditionCheck: {
        Key: sessionKey(score.sessionId),
        ConditionExpression: "attribute_exists(PK) AND orgId = :org AND #environment = :env",
        ExpressionAttributeNames: tenantNames,
        ExpressionAttributeValues: tenantValues,
      },
    },
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
  ];
}

function tenantOf(item: Record<string, unknown>) {
  return { orgId: String(item.orgId), environment: String(item.environment) };
}

/** One page of a session's scores, oldest first (by id: a ULID, so by creation time for the service's ids). */
export async function queryScores(
  sessionId: string,
  limit: number,
  startKey: Record<string, unknown> | undefined,
  nowMs = Date.now(),
): Promise<{ items: Score[]; lastKey: Record<string, unknown> | undefined }> {
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :scores)",
    FilterExpression: "attribute_not_exists(#ttl) OR #ttl > :now",
    ExpressionAttributeNames: { "#ttl": "ttl" },
    ExpressionAttributeValues: {
      ":pk": sessionKey(sessionId).PK,
      ":scores": SCORE_PREFIX,
      ":now": Math.floor(nowMs / 1000),
    },
    startKey,
    Limit: limit,
    ConsistentRead: true,
  });
  return { items: page.items.map((item) => scoreEntity.fromItem(item)), lastKey: page.lastKey };
}

/** A session's first `limit` scores, and whether it has more (GET /api/sdk/sessions/{id}). */
export async function firstScoresOf(
  sessionId: string,
  limit: number,
  nowMs = Date.now(),
): Promise<{ scores: Score[]; truncated: boolean }> {
  const page = await queryScores(sessionId, limit + 1, undefined, nowMs);
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
  await scoredSession(principal, sessionId, nowMs);
  const missing = new NotFoundError(`Score ${scoreId} not found in session ${sessionId}`);
  if (!isId("score", scoreId)) throw missing;
  // What the stream consumer counted of it is withdrawn in the same transaction (score-withdrawal.ts).
  const deleted = await deleteScoresWithdrawing([scoreKey(sessionId, scoreId)]);
  if (deleted === 0) throw missing;
}
