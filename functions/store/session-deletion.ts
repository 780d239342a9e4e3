/**
 * Deleting a session: its events (batched deletes), then in one transaction
 * the session item and its contribution to the rollups (and, for an erasure
 * job, the job's counters). If events arrive meanwhile the transaction fails
 * on the session's event count and the whole step is repeated. The session
 * item goes last, so a deletion that fails part-way is finished by another.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ConflictError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import { outcomeCounters, toolCounts } from "../domain/rollup.js";
import { isFinal, type Session } from "../domain/session.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { type ItemKey, sessionKey } from "./keys.js";
import { deletePayloadsOf } from "./payload-store.js";
import { agentSummaryUpdate, rollupUpdates } from "./rollup-store.js";
import { getSession, rollupTargetOf } from "./session-store.js";

const BATCH_WRITE_LIMIT = 25;
const MAX_ATTEMPTS = 8;
const DELETE_ATTEMPTS = 5;

async function pause(attempt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
}

/** Deletes items by key, retrying unprocessed ones with backoff. */
export async function deleteItems(keys: readonly ItemKey[]): Promise<void> {
  for (let start = 0; start < keys.length; start += BATCH_WRITE_LIMIT) {
    let pending = keys.slice(start, start + BATCH_WRITE_LIMIT).map((key) => ({ DeleteRequest: { Key: key } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} deletes unprocessed`);
      if (attempt > 0) await pause(attempt);
      const result = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
}

async function deleteEventsOf(sessionId: string): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :events)",
        ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK, ":events": "EVENT#" },
        ProjectionExpression: "PK, SK",
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    await deleteItems((page.Items ?? []).map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

/** The rollup change that takes `session` back out of its day. */
function withdrawal(session: Session) {
  if (!isFinal(session.status)) return { counters: { sessions: -1 } };
  const tools = toolCounts(session.toolCalls, session.toolErrors, -1);
  return {
    counters: { sessions: -1, ...outcomeCounters({ ...session, status: session.status }, -1) },
    tools,
    ...(session.status === "failed" && session.failureReason !== undefined
      ? { failure: { reason: session.failureReason, count: -1 } }
      : {}),
  };
}

/** An extra transaction item written with the deletion (an erasure job's counters). */
export type DeletionReceipt = (session: Session) => Record<string, unknown>;

/**
 * Deletes a session of the principal's tenant with its events and its rollup
 * contribution. 404 when unknown, 403 when another tenant's.
 */
export async function deleteSession(
  principal: Principal,
  sessionId: string,
  options: { receipt?: DeletionReceipt; nowMs?: number } = {},
): Promise<Session> {
  const nowMs = options.nowMs ?? Date.now();
  for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
    const session = await getSession(principal, sessionId, nowMs);
    // The whole transaction is built before anything is deleted: a session whose withdrawal cannot be
    // computed is left whole. Once the events are gone the session item still stands (eventCount
    // unchanged), so a failure of the transaction leaves a session that a DELETE again finishes.
    const target = rollupTargetOf(principal, session, nowMs);
    const transactItems = [
      {
        Delete: {
          TableName: tableName,
          Key: sessionKey(sessionId),
          ConditionExpression: "attribute_exists(PK) AND eventCount = :seen AND #status = :status",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":seen": session.eventCount, ":status": session.status },
        },
      },
      agentSummaryUpdate(target.tenant, session.agentName, -1, target.ttl),
      ...rollupUpdates(target, withdrawal(session)),
      ...(options.receipt === undefined ? [] : [options.receipt(session)]),
    ];
    await deleteEventsOf(sessionId);
    await deletePayloadsOf({ orgId: session.orgId, environment: session.environment, sessionId });
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: transactItems }));
      return session;
    } catch (error) {
      const raced =
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === "ConditionalCheckFailed";
      if (!raced) throw error;
    }
  }
  throw new ConflictError(`Session ${sessionId} kept changing while it was being deleted; retry the request`);
}
