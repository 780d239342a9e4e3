/**
 * Persistence of sessions. One item per session (`SESSION#<id>` / `SESSION`);
 * tenancy and state are enforced by condition expressions. A start is one
 * PutItem and an end one UpdateItem: the rollups they change are counted from
 * the change stream (functions/stream/), with the session's event counters.
 */
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { ConflictError, NotFoundError, ValidationError } from "../../domain/errors.js";
import { occurredAtProblem } from "../../domain/event.js";
import { isId, newId } from "../../domain/ids.js";
import type { JsonObject } from "../../domain/json.js";
import { LIMITS } from "../../domain/limits.js";
import { foreignSessionError, ownsTenantData, type Principal } from "../../domain/principal.js";
import { dayOf } from "../../domain/rollup.js";
import {
  completedAtProblem,
  isFinal,
  isRepeatOfFinalUpdate,
  isRepeatOfStart,
  PATCHABLE_FIELDS,
  planSessionUpdate,
  type Session,
  type SessionChanges,
  type SessionPatch,
  type SessionStart,
} from "../../domain/session.js";
import {
  type ConversationSession,
  conversationJoinUpdate,
  conversationRunPut,
} from "../conversations/conversation-items.js";
import type { RollupTarget } from "../counting/rollup-store.js";
import { batchGetItems } from "../table/batch-operations.js";
import { cancellationItem, conditionFailureItem, isConditionFailure } from "../table/condition-failure.js";
import { documentClient, tableName } from "../table/dynamo-client.js";
import { defineEntity } from "../table/entity.js";
import {
  sessionKey,
  sessionStatusKeys,
  sessionStatusPartition,
  sessionTimelineKeys,
  sessionUserStatusPartition,
  tenant,
} from "../table/keys.js";
import { DEFAULT_ROLLUP_RETENTION_DAYS, expiryEpochSeconds, isExpired } from "../table/retention.js";
import { type TransactItem, transact } from "../table/table-operations.js";
import { backoff, isTransactionConflict, isWriteConflict } from "../table/write-retry.js";
import { countersFromStored } from "./counter-keys.js";
import { rememberSession } from "./session-access.js";
import { TOOL_MOVE_ATTRIBUTE, toolMoveOf } from "./tool-move-record.js";

export const SESSION_ENTITY = "session";

/** Attributes stored as JSON text rather than DynamoDB maps (see docs/data-model.md). */
const JSON_TEXT_ATTRIBUTES = { metadata: "metadataJson", customMetrics: "customMetricsJson" } as const;
/** The attribute holding a session's metadata (JSON text). */
export const SESSION_METADATA_ATTRIBUTE = JSON_TEXT_ATTRIBUTES.metadata;

export type SessionItem = Record<string, unknown>;

function parseJsonText<T>(value: unknown): T | undefined {
  return typeof value === "string" ? (JSON.parse(value) as T) : undefined;
}

/**
 * The session item's declaration for reading: its tag and the fields every session carries (the write is
 * writeNewSession's conditional put, with its index keys from keys.ts).
 */
const sessionEntity = defineEntity<Session, Session>({
  tag: SESSION_ENTITY,
  fields: { id: "string", orgId: "string", environment: "string", status: "string", createdAt: "string" },
  storageAttributes: [JSON_TEXT_ATTRIBUTES.metadata, JSON_TEXT_ATTRIBUTES.customMetrics, "ttl"],
  key: (session) => sessionKey(session.id),
  indexKeys: (session) => ({ ...sessionTimelineKeys(session), ...sessionStatusKeys(session, session.status) }),
  attributes: (session) => ({ ...session }),
});

/** Rebuilds a session from its stored item (ItemShapeError when it is not one). */
export function sessionFromItem(item: SessionItem): Session {
  return {
    ...sessionEntity.fromItem(item),
    toolCalls: countersFromStored(item.toolCalls),
    toolErrors: countersFromStored(item.toolErrors),
    metadata: parseJsonText<JsonObject>(item[JSON_TEXT_ATTRIBUTES.metadata]),
    customMetrics: parseJsonText<Record<string, number>>(item[JSON_TEXT_ATTRIBUTES.customMetrics]),
    toolMove: toolMoveOf(item[TOOL_MOVE_ATTRIBUTE]),
  };
}

/** Where a session's rollups live and how long they are kept (from `nowMs`). */
export function rollupTargetOf(
  session: Pick<Session, "orgId" | "environment" | "agentName" | "userId" | "createdAt" | "rollupRetentionDays">,
  nowMs: number,
): RollupTarget {
  return {
    tenant: tenant(session.orgId, session.environment),
    agentName: session.agentName,
    userId: session.userId,
    day: dayOf(session.createdAt),
    ttl: expiryEpochSeconds(nowMs, session.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS),
  };
}

function rejectionFor(
  principal: Principal,
  sessionId: string,
  item: SessionItem | undefined,
  nowMs: number,
): Error | Session {
  if (item === undefined || isExpired(item, nowMs)) return new NotFoundError(`Session ${sessionId} not found`);
  const stored = sessionFromItem(item);
  if (!ownsTenantData(principal, stored)) return foreignSessionError(principal, sessionId);
  return stored;
}

/** A session of the principal's tenant (404 when unknown or expired, 403 when another tenant's). */
export async function getSession(principal: Principal, sessionId: string, nowMs = Date.now()): Promise<Session> {
  if (!isId("session", sessionId)) throw new NotFoundError(`Session ${sessionId} not found`);
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: sessionKey(sessionId), ConsistentRead: true }),
  );
  const outcome = rejectionFor(principal, sessionId, result.Item, nowMs);
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

/** Sessions of the principal's tenant read at once (consistently): those found and its own, by id. */
export async function readSessions(
  principal: Principal,
  sessionIds: readonly string[],
  nowMs: number,
): Promise<ReadonlyMap<string, Session>> {
  const sessions = new Map<string, Session>();
  const keys = sessionIds.filter((sessionId) => isId("session", sessionId)).map(sessionKey);
  for (const item of await batchGetItems(keys)) {
    const outcome = rejectionFor(principal, String(item.id), item, nowMs);
    if (!(outcome instanceof Error)) sessions.set(outcome.id, outcome);
  }
  return sessions;
}

/**
 * 400 when a client's session timestamp (`startedAt`, `completedAt`) breaks the rule of events' `occurredAt`: at
 * most 5 minutes ahead, within retention.
 */
function assertClientTimestamp(
  field: "startedAt" | "completedAt",
  value: string | undefined,
  principal: Principal,
  nowMs: number,
): void {
  if (value === undefined) return;
  const problem = occurredAtProblem(value, nowMs, principal.retentionDays, LIMITS.occurredAtFutureMs);
  if (problem !== undefined)
    throw new ValidationError(`Invalid ${field}: ${problem}`, [{ path: field, message: problem }]);
}

/**
 * 400 when a session's start (a client's `startedAt`, or the start an OpenTelemetry root span gives a session
 * started from its children) is older than the organisation's retention or more than 5 minutes ahead.
 */
export function assertSessionStart(principal: Principal, startedAt: string, nowMs: number): void {
  assertClientTimestamp("startedAt", startedAt, principal, nowMs);
}

/** 400 when a client's `completedAt` lies before the session's start (a repeat of the stored final update is not). */
function assertCompletedAfterStart(stored: Session, patch: SessionPatch): void {
  if (isRepeatOfFinalUpdate(stored, patch)) return;
  const problem = completedAtProblem(stored, patch.completedAt);
  if (problem !== undefined)
    throw new ValidationError(`Invalid completedAt: ${problem}`, [{ path: "completedAt", message: problem }]);
}

/**
 * Starts a session. Its id is the client's (`start.id`), else the one an Idempotency-Key fixed (`plannedUlid`),
 * else a new one. With a fixed id the session may already exist: a repeat of its start in the caller's tenant is
 * answered with the stored session and writes nothing; anything else is a 409 that does not say whose it is.
 * `start.startedAt` backdates the session: its `createdAt` (so its place in listings and its rollup day) and the
 * retention its TTL counts from.
 */
export async function createSession(
  principal: Principal,
  start: SessionStart,
  nowMs = Date.now(),
  plannedUlid?: string,
): Promise<Session> {
  const { session, item, ttl } = newSessionRecord(principal, start, nowMs, plannedUlid);
  try {
    const { conversationId } = session;
    if (conversationId === undefined) await writeNewSession(item);
    else await writeWithRetry([sessionPut(item), ...conversationJoin({ ...session, conversationId }, ttl)]);
    rememberSession(session.id, { orgId: session.orgId, environment: session.environment, expiresAt: ttl });
    return session;
  } catch (error) {
    // The id is taken: a single put's failure or the transaction's first item's, with the item as it is.
    const taken = isConditionFailure(error, 0) ? cancellationItem(error, 0) : conditionFailureItem(error);
    if (!isConditionFailure(error, 0) && !(isConditionFailure(error) && taken !== undefined)) throw error;
    return existingSessionFor(principal, start, session.id, taken ?? {}, nowMs);
  }
}

const JOIN_ATTEMPTS = 5;

/** A transaction tried again after losing a race (runs of one conversation starting at once share its summary). */
async function writeWithRetry(items: readonly TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await transact(items);
      return;
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= JOIN_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

/** A new session's Put in a transaction (a taken id returns the item as it is, as writeNewSession does). */
export function sessionPut(item: SessionItem): TransactItem {
  return {
    Put: {
      Item: item,
      ConditionExpression: "attribute_not_exists(PK)",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    },
  };
}

/**
 * What a new session naming a conversation writes with it (conversation-items.ts): its membership and the count of
 * its conversation's summary (created with its first run).
 */
export function conversationJoin(session: ConversationSession, ttl: number): TransactItem[] {
  return [conversationRunPut(session, ttl), conversationJoinUpdate(session, ttl)];
}

/**
 * A new session of the principal's tenant and its item, not yet written (400 for a `startedAt` out of
 * bounds). Its rollups and its agent's summary are counted from the change stream (functions/stream/);
 * `rollupRetentionDays` tells the consumer how long they are kept.
 */
export function newSessionRecord(principal: Principal, start: SessionStart, nowMs: number, plannedUlid?: string) {
  assertClientTimestamp("startedAt", start.startedAt, principal, nowMs);
  const { id: clientId, startedAt, ...input } = start;
  const now = new Date(nowMs).toISOString();
  const createdAt = startedAt ?? now;
  const session: Session = {
    ...input,
    id: clientId ?? (plannedUlid === undefined ? newId("session", nowMs) : `ses_${plannedUlid}`),
    orgId: principal.orgId,
    environment: principal.environment,
    status: "active",
    eventCount: 0,
    eventCost: 0,
    toolCalls: {},
    toolErrors: {},
    createdAt,
    updatedAt: now,
    lastActivityAt: now,
  };
  const { metadata, ...stored } = session;
  const ttl = expiryEpochSeconds(Date.parse(createdAt), principal.retentionDays);
  const item: SessionItem = {
    ...sessionKey(session.id),
    ...sessionTimelineKeys(session),
    ...sessionStatusKeys(session, session.status),
    entity: SESSION_ENTITY,
    ...stored,
    [JSON_TEXT_ATTRIBUTES.metadata]: metadata === undefined ? undefined : JSON.stringify(metadata),
    rollupRetentionDays: principal.rollupRetentionDays,
    countMarks: {},
    ttl,
  };
  return { session, item, ttl };
}

/** The answer to a start whose id is taken: the stored session if it is a repeat in the caller's tenant, else 409. */
function existingSessionFor(
  principal: Principal,
  start: SessionStart,
  sessionId: string,
  item: SessionItem,
  nowMs: number,
): Session {
  const conflict = new ConflictError(
    `A session with this id already exists (${sessionId}); a retry must send the same name, agentName, userId and startedAt`,
  );
  if (item.PK === undefined || isExpired(item, nowMs)) throw conflict;
  const stored = sessionFromItem(item);
  if (!ownsTenantData(principal, stored) || !isRepeatOfStart(stored, start)) throw conflict;
  return stored;
}

/** The session item alone: one conditional PutItem. */
async function writeNewSession(item: SessionItem): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: item,
      ConditionExpression: "attribute_not_exists(PK)",
      // A taken id is answered from the item as it is (a repeat, or a 409): no read, no GetItem grant.
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    }),
  );
}

function assignments(changes: SessionChanges) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const assign = (attribute: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    sets.push(`#${attribute} = :${attribute}`);
  };
  for (const field of PATCHABLE_FIELDS) {
    const value = changes[field];
    if (value === undefined) continue;
    if (field === "customMetrics") assign(JSON_TEXT_ATTRIBUTES.customMetrics, JSON.stringify(value));
    else assign(field, value);
  }
  assign("updatedAt", changes.updatedAt);
  assign("lastActivityAt", changes.lastActivityAt);
  return { names, values, sets };
}

/**
 * Applies `patch` to an active session of the principal's tenant. A session
 * in a final state only accepts a repeat of its final update (answered with
 * the stored session); anything else is a conflict.
 */
export async function updateSession(
  principal: Principal,
  sessionId: string,
  patch: SessionPatch,
  nowMs = Date.now(),
): Promise<Session> {
  if (!isId("session", sessionId)) throw new NotFoundError(`Session ${sessionId} not found`);
  return patch.status === undefined
    ? updateActiveSession(principal, sessionId, patch, nowMs)
    : endSession(principal, sessionId, patch, nowMs);
}

function resolveRejectedUpdate(stored: Session, sessionId: string, patch: SessionPatch): Session {
  if (isRepeatOfFinalUpdate(stored, patch)) return stored;
  if (isFinal(stored.status)) {
    throw new ConflictError(
      `Session ${sessionId} is already ${stored.status} and cannot be changed; only an identical repeat of its final update is accepted`,
    );
  }
  throw new ConflictError(`Session ${sessionId} was modified concurrently; retry the request`);
}

/** Metrics without a status change: one conditional UpdateItem, no read. */
async function updateActiveSession(principal: Principal, sessionId: string, patch: SessionPatch, nowMs: number) {
  const { names, values, sets } = assignments(planSessionUpdate(patch, new Date(nowMs).toISOString()));
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(sessionId),
        UpdateExpression: `SET ${sets.join(", ")}`,
        ConditionExpression:
          "attribute_exists(PK) AND #orgId = :orgId AND #environment = :environment AND #status = :active",
        ExpressionAttributeNames: { ...names, "#status": "status", "#orgId": "orgId", "#environment": "environment" },
        ExpressionAttributeValues: {
          ...values,
          ":active": "active",
          ":orgId": principal.orgId,
          ":environment": principal.environment,
        },
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    );
    return sessionFromItem(result.Attributes ?? {});
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const outcome = rejectionFor(principal, sessionId, conditionFailureItem(error), nowMs);
    if (outcome instanceof Error) throw outcome;
    return resolveRejectedUpdate(outcome, sessionId, patch);
  }
}

const END_ATTEMPTS = 5;

/**
 * Ends a session: reads it, then one conditional UpdateItem writes the final state (only if it is still
 * active) and moves it to its status's index partitions. Its outcome is folded into its day's rollups by
 * the stream consumer, which sees the change. A client's `completedAt` (an end delivered late) must lie
 * between the session's `createdAt` and 5 minutes ahead, within retention: a 400 otherwise, whatever the
 * session's state, unless it repeats the stored final update. It becomes `completedAt`; nothing else
 * depends on it (the rollup day is the start's, the status indexes sort by `createdAt`, `stale` is only for
 * active sessions), and `updatedAt` / `lastActivityAt` stay the service's clock.
 */
export async function endSession(
  principal: Principal,
  sessionId: string,
  patch: SessionPatch,
  nowMs: number,
  /** The session as just read (readSessions), for the first attempt. */
  read?: Session,
) {
  assertClientTimestamp("completedAt", patch.completedAt, principal, nowMs);
  for (let attempt = 0; attempt < END_ATTEMPTS; attempt++) {
    const stored = attempt === 0 && read !== undefined ? read : await getSession(principal, sessionId, nowMs);
    assertCompletedAfterStart(stored, patch);
    if (isFinal(stored.status)) return resolveRejectedUpdate(stored, sessionId, patch);
    const changes = planSessionUpdate(patch, new Date(nowMs).toISOString());
    const status = changes.status ?? stored.status;
    const { names, values, sets } = assignments(changes);
    try {
      const result = await documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: sessionKey(sessionId),
          UpdateExpression: `SET ${sets.join(", ")}, GSI4PK = :statusPartition, GSI5PK = :statusPartition, GSI7PK = :userStatusPartition, GSI8PK = :userStatusPartition`,
          ConditionExpression: "#status = :active",
          ExpressionAttributeNames: { ...names, "#status": "status" },
          ExpressionAttributeValues: {
            ...values,
            ":active": "active",
            ":statusPartition": sessionStatusPartition(principal.orgId, principal.environment, status),
            ":userStatusPartition": sessionUserStatusPartition(
              principal.orgId,
              principal.environment,
              status,
              stored.userId,
            ),
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return sessionFromItem(result.Attributes ?? {});
    } catch (error) {
      if (isWriteConflict(error)) await backoff(attempt + 1);
      else if (!isConditionFailure(error)) throw error;
    }
  }
  throw new ConflictError(`Session ${sessionId} kept changing while it was being ended; retry the request`);
}
