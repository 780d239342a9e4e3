/**
 * The items of a conversation (issue 33), written with the sessions that name it:
 *
 * - a membership item per run, `SESSION#<sessionId>` / `CONVERSATION`, in the run's own partition (so it goes
 *   with the session on deletion, erasure and TTL), indexed on GSI1 under its conversation, sorted by start;
 * - one summary item per conversation, `CONVERSATION#<tenant>#<enc(id)>` / `CONVERSATION`: its first run's agent,
 *   user and start (its listing keys on GSI1/2/3/6, written once), its newest run's start and its `runCount`,
 *   ADDed by each run's start and withdrawn by each run's deletion, in the same transactions.
 */
import type { Environment } from "../../domain/api-key.js";
import type { Conversation } from "../../domain/conversation.js";
import type { Session } from "../../domain/session.js";
import { checkItem, defineEntity, type Item } from "../table/entity.js";
import { conversationIndexKeys, conversationKey, conversationRunIndexKeys, conversationRunKey } from "../table/keys.js";
import type { TransactItem } from "../table/table-operations.js";

export const CONVERSATION_ENTITY = "conversation";
export const CONVERSATION_RUN_ENTITY = "conversationRun";

/** What a run's membership records: enough to find its session and its conversation. */
interface ConversationRun {
  readonly sessionId: string;
  readonly conversationId: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly createdAt: string;
  readonly ttl: number;
}

const conversationRunEntity = defineEntity<ConversationRun, ConversationRun>({
  tag: CONVERSATION_RUN_ENTITY,
  fields: { sessionId: "string", conversationId: "string", createdAt: "string" },
  storageAttributes: ["ttl"],
  key: (run) => conversationRunKey(run.sessionId),
  indexKeys: (run) => conversationRunIndexKeys(run),
  attributes: (run) => ({ ...run }),
});

/** A session that names a conversation: the fields its conversation's items are made of. */
export type ConversationSession = Pick<
  Session,
  "id" | "orgId" | "environment" | "agentName" | "userId" | "createdAt"
> & { readonly conversationId: string };

/** The Put of a run's membership (a new session's partition has none). */
export function conversationRunPut(session: ConversationSession, ttl: number): TransactItem {
  return {
    Put: {
      Item: conversationRunEntity.toItem({
        sessionId: session.id,
        conversationId: session.conversationId,
        orgId: session.orgId,
        environment: session.environment,
        createdAt: session.createdAt,
        ttl,
      }),
      ConditionExpression: "attribute_not_exists(PK)",
    },
  };
}

/** The Delete of a run's membership (only if it is there: a run leaves its conversation once). */
export function conversationRunDelete(sessionId: string): TransactItem {
  return { Delete: { Key: conversationRunKey(sessionId), ConditionExpression: "attribute_exists(PK)" } };
}

/**
 * The Update counting a new run into its conversation's summary, creating the summary with its first run: the
 * first run's agent, user and start (and the listing keys made of them) are written only if absent; the newest
 * start, the expiry (the newest run's: a conversation lasts as long as its newest run's retention) and the count
 * change with every run.
 */
export function conversationJoinUpdate(session: ConversationSession, ttl: number): TransactItem {
  const indexKeys = conversationIndexKeys({ ...session, startedAt: session.createdAt });
  const firstOnly: Record<string, unknown> = {
    agentName: session.agentName,
    userId: session.userId,
    startedAt: session.createdAt,
    ...indexKeys,
  };
  const names: Record<string, string> = { "#entity": "entity", "#ttl": "ttl", "#environment": "environment" };
  const values: Record<string, unknown> = {
    ":entity": CONVERSATION_ENTITY,
    ":id": session.conversationId,
    ":org": session.orgId,
    ":env": session.environment,
    ":last": session.createdAt,
    ":ttl": ttl,
    ":one": 1,
  };
  const sets = [
    "#entity = :entity",
    "conversationId = :id",
    "orgId = :org",
    "#environment = :env",
    "lastRunAt = :last",
    "#ttl = :ttl",
  ];
  Object.entries(firstOnly).forEach(([attribute, value], position) => {
    names[`#f${position}`] = attribute;
    values[`:f${position}`] = value;
    sets.push(`#f${position} = if_not_exists(#f${position}, :f${position})`);
  });
  return {
    Update: {
      Key: conversationKey(session.orgId, session.environment, session.conversationId),
      UpdateExpression: `SET ${sets.join(", ")} ADD runCount :one`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The Update withdrawing a deleted run from its conversation's count, if the summary is still there (it lasts as
 * long as its newest run's retention; a run kept longer by late events may outlive it).
 */
export function conversationLeaveUpdate(
  session: Pick<Session, "orgId" | "environment"> & { readonly conversationId: string },
): TransactItem {
  return {
    Update: {
      Key: conversationKey(session.orgId, session.environment, session.conversationId),
      UpdateExpression: "ADD runCount :minusOne",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":minusOne": -1 },
    },
  };
}

/**
 * The Update moving a conversation's first-run fields (and their listing keys) with its first run, when an
 * OpenTelemetry revision moves that run to its real agent, user or start: conditioned on the summary still
 * describing that run as it was, so it never rewrites a conversation another run started.
 */
export function conversationFirstRunMove(
  before: ConversationSession,
  after: Pick<Session, "agentName" | "userId" | "createdAt">,
): TransactItem {
  const moved = { ...before, ...after };
  const sets: Record<string, unknown> = {
    agentName: moved.agentName,
    userId: moved.userId,
    startedAt: moved.createdAt,
    ...conversationIndexKeys({ ...moved, startedAt: moved.createdAt }),
  };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ":beforeAgent": before.agentName,
    ":beforeUser": before.userId,
    ":beforeStart": before.createdAt,
  };
  const clauses = Object.entries(sets).map(([attribute, value], position) => {
    names[`#m${position}`] = attribute;
    values[`:m${position}`] = value;
    return `#m${position} = :m${position}`;
  });
  names["#agentName"] = "agentName";
  names["#userId"] = "userId";
  names["#startedAt"] = "startedAt";
  return {
    Update: {
      Key: conversationKey(before.orgId, before.environment, before.conversationId),
      UpdateExpression: `SET ${clauses.join(", ")}`,
      ConditionExpression: "#agentName = :beforeAgent AND #userId = :beforeUser AND #startedAt = :beforeStart",
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** The Update re-sorting a run's membership when its start moves (the root span's start replaces the first spans'). */
export function conversationRunRestart(run: ConversationSession, createdAt: string): TransactItem {
  const { GSI1SK } = conversationRunIndexKeys({ ...run, sessionId: run.id, createdAt });
  return {
    Update: {
      Key: conversationRunKey(run.id),
      UpdateExpression: "SET GSI1SK = :sortKey, createdAt = :createdAt",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":sortKey": GSI1SK, ":createdAt": createdAt },
    },
  };
}

/** Whether a stored summary describes `run` as its first run (the run started the conversation). */
export function isFirstRunOf(
  item: Item | undefined,
  run: Pick<Session, "agentName" | "userId" | "createdAt">,
): boolean {
  return (
    item !== undefined &&
    item.agentName === run.agentName &&
    item.userId === run.userId &&
    item.startedAt === run.createdAt
  );
}

/** Fields every conversation summary carries. */
const SUMMARY_FIELDS = {
  conversationId: "string",
  agentName: "string",
  userId: "string",
  startedAt: "string",
  lastRunAt: "string",
  runCount: "number",
} as const;

/** A stored summary as a conversation (ItemShapeError when it is not one). */
export function conversationFromItem(item: Item): Conversation {
  checkItem(CONVERSATION_ENTITY, SUMMARY_FIELDS, item);
  return {
    id: String(item.conversationId),
    agentName: String(item.agentName),
    userId: String(item.userId),
    startedAt: String(item.startedAt),
    lastRunAt: String(item.lastRunAt),
    runCount: Number(item.runCount),
  };
}

/** Whether a summary item is one a reader may show: runs left (every run of it deleted: not). */
export function isShownSummary(item: Item): boolean {
  return typeof item.runCount === "number" && item.runCount > 0;
}
