/**
 * What a score is given to (issue 33), read once before its write: a session of the caller's tenant (and one event
 * of it), or a conversation of the caller's tenant. Each target says where its scores live (its own partition), what
 * they are counted under, when they expire, and the condition its score's transaction checks on it, so a score
 * never outlives a target deleted while it was being written.
 */
import { ForbiddenError, NotFoundError } from "../../domain/errors.js";
import { isId } from "../../domain/ids.js";
import { foreignSessionError, ownsTenantData, type Principal } from "../../domain/principal.js";
import { dayOf } from "../../domain/rollup.js";
import type { ScoreTarget } from "../../domain/score.js";
import { isShownSummary } from "../conversations/conversation-items.js";
import { EVENT_ENTITY } from "../events/event-store.js";
import { conversationKey, eventKey, type ItemKey, sessionKey } from "../table/keys.js";
import { isExpired } from "../table/retention.js";
import { getItem, type TransactItem } from "../table/table-operations.js";

/** A target as a score's write needs it. */
export interface ScoredTarget {
  readonly target: ScoreTarget;
  /** The target item (session or conversation summary) and its partition, which holds its scores and their count. */
  readonly key: ItemKey;
  /** The agent its scores are counted under. */
  readonly agentName: string;
  /** The day a score first written at `createdAt` is counted under. */
  readonly dayOf: (createdAt: string) => string;
  /** The target's expiry (its scores take it), if it has one. */
  readonly ttl: number | undefined;
  readonly rollupRetentionDays: number | undefined;
  /** The transaction's check that the target still exists in the caller's tenant. */
  readonly check: TransactItem;
  /** The 404 of this target (unknown, expired, deleted, or deleted meanwhile). */
  readonly notFound: () => NotFoundError;
}

const sessionNotFound = (sessionId: string) => new NotFoundError(`Session ${sessionId} not found`);
const conversationNotFound = (conversationId: string) => new NotFoundError(`Conversation ${conversationId} not found`);

/** The session a score goes to: 404 unknown, expired or deleted; 403 another tenant's. */
async function scoredSession(principal: Principal, sessionId: string, nowMs: number): Promise<ScoredTarget> {
  if (!isId("session", sessionId)) throw sessionNotFound(sessionId);
  const item = await getItem(sessionKey(sessionId), {
    projection: ["entity", "orgId", "environment", "agentName", "createdAt", "ttl", "rollupRetentionDays"],
  });
  if (item === undefined || isExpired(item, nowMs) || typeof item.orgId !== "string") {
    throw sessionNotFound(sessionId);
  }
  if (!ownsTenantData(principal, { orgId: item.orgId, environment: String(item.environment) })) {
    throw foreignSessionError(principal, sessionId);
  }
  const sessionDay = dayOf(String(item.createdAt));
  return {
    target: { kind: "session", sessionId },
    key: sessionKey(sessionId),
    agentName: String(item.agentName),
    dayOf: () => sessionDay,
    ttl: typeof item.ttl === "number" ? item.ttl : undefined,
    rollupRetentionDays: typeof item.rollupRetentionDays === "number" ? item.rollupRetentionDays : undefined,
    check: {
      ConditionCheck: {
        Key: sessionKey(sessionId),
        ConditionExpression: "attribute_exists(PK) AND orgId = :org AND #environment = :env",
        ExpressionAttributeNames: { "#environment": "environment" },
        ExpressionAttributeValues: { ":org": principal.orgId, ":env": principal.environment },
      },
    },
    notFound: () => sessionNotFound(sessionId),
  };
}

/**
 * The conversation a score goes to: 404 unknown in the caller's tenant (the tenant is in its key), expired, or with
 * every run deleted; 403 for a feedback token, which is bound to one session.
 */
async function scoredConversation(principal: Principal, conversationId: string, nowMs: number): Promise<ScoredTarget> {
  if (principal.feedbackTokenId !== undefined) {
    throw new ForbiddenError("A feedback token is bound to one session: it cannot score a conversation");
  }
  const key = conversationKey(principal.orgId, principal.environment, conversationId);
  const item = await getItem(key, { projection: ["entity", "agentName", "ttl", "runCount"] });
  if (item === undefined || isExpired(item, nowMs) || !isShownSummary(item) || typeof item.agentName !== "string") {
    throw conversationNotFound(conversationId);
  }
  return {
    target: { kind: "conversation", conversationId },
    key,
    agentName: item.agentName,
    dayOf,
    ttl: typeof item.ttl === "number" ? item.ttl : undefined,
    rollupRetentionDays: principal.rollupRetentionDays,
    check: {
      ConditionCheck: {
        Key: key,
        // Runs left: a conversation whose last run went has had its scores swept (conversation-score-sweep.ts).
        ConditionExpression: "attribute_exists(PK) AND runCount > :none",
        ExpressionAttributeValues: { ":none": 0 },
      },
    },
    notFound: () => conversationNotFound(conversationId),
  };
}

/** 404 unless the event is one of the session's (and not expired). */
export async function assertEventOfSession(sessionId: string, eventId: string, nowMs: number): Promise<void> {
  const missing = () => new NotFoundError(`Event ${eventId} not found in session ${sessionId}`);
  if (!isId("event", eventId)) throw missing();
  const item = await getItem(eventKey(sessionId, eventId), { projection: ["entity", "ttl"] });
  if (item === undefined || item.entity !== EVENT_ENTITY || isExpired(item, nowMs)) throw missing();
}

/**
 * The target a score names, checked (its event, if any, is checked by assertEventOfSession): 404 unknown, expired
 * or deleted; 403 another tenant's session.
 */
export async function scoredTarget(principal: Principal, target: ScoreTarget, nowMs: number): Promise<ScoredTarget> {
  const scored =
    target.kind === "conversation"
      ? await scoredConversation(principal, target.conversationId, nowMs)
      : await scoredSession(principal, target.sessionId, nowMs);
  return { ...scored, target };
}
