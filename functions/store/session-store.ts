/**
 * Persistence of sessions. One item per session (`SESSION#<id>` / `SESSION`);
 * tenancy and state are enforced by condition expressions, so every write is
 * a single round trip on the happy path.
 */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { ConflictError, ForbiddenError, NotFoundError } from "../domain/errors.js";
import { isId, newId } from "../domain/ids.js";
import type { JsonObject } from "../domain/json.js";
import { ownsTenantData, type Principal } from "../domain/principal.js";
import {
  isFinal,
  isRepeatOfFinalUpdate,
  type NewSession,
  PATCHABLE_FIELDS,
  planSessionUpdate,
  type Session,
  type SessionPatch,
} from "../domain/session.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { sessionKey, sessionStatusKeys, sessionStatusPartition, sessionTimelineKeys } from "./keys.js";
import { expiryEpochSeconds } from "./retention.js";

export const SESSION_ENTITY = "session";

/** Attributes stored as JSON text rather than DynamoDB maps (see docs/data-model.md). */
const JSON_TEXT_ATTRIBUTES = { metadata: "metadataJson", customMetrics: "customMetricsJson" } as const;

export type SessionItem = Record<string, unknown>;

function parseJsonText<T>(value: unknown): T | undefined {
  return typeof value === "string" ? (JSON.parse(value) as T) : undefined;
}

/** Rebuilds a session from its stored item. */
export function sessionFromItem(item: SessionItem): Session {
  const { metadataJson, customMetricsJson, PK, SK, entity, ttl, ...fields } = item;
  return {
    ...(fields as unknown as Session),
    metadata: parseJsonText<JsonObject>(metadataJson),
    customMetrics: parseJsonText<Record<string, number>>(customMetricsJson),
  };
}

export async function createSession(principal: Principal, input: NewSession, nowMs = Date.now()): Promise<Session> {
  const now = new Date(nowMs).toISOString();
  const session: Session = {
    ...input,
    id: newId("session", nowMs),
    orgId: principal.orgId,
    environment: principal.environment,
    status: "active",
    eventCount: 0,
    eventCost: 0,
    createdAt: now,
    updatedAt: now,
    lastActivityAt: now,
  };
  const { metadata, ...stored } = session;
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...sessionKey(session.id),
        ...sessionTimelineKeys(session),
        ...sessionStatusKeys(session, session.status),
        entity: SESSION_ENTITY,
        ...stored,
        [JSON_TEXT_ATTRIBUTES.metadata]: metadata === undefined ? undefined : JSON.stringify(metadata),
        ttl: expiryEpochSeconds(nowMs, principal.retentionDays),
      },
      ConditionExpression: "attribute_not_exists(PK)",
    }),
  );
  return session;
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
  const changes = planSessionUpdate(patch, new Date(nowMs).toISOString());
  const names: Record<string, string> = { "#status": "status", "#orgId": "orgId", "#environment": "environment" };
  const values: Record<string, unknown> = {
    ":active": "active",
    ":orgId": principal.orgId,
    ":environment": principal.environment,
  };
  const assignments: string[] = [];
  const assign = (attribute: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    assignments.push(`#${attribute} = :${attribute}`);
  };

  for (const field of PATCHABLE_FIELDS) {
    const value = changes[field];
    if (value === undefined) continue;
    if (field === "customMetrics") assign(JSON_TEXT_ATTRIBUTES.customMetrics, JSON.stringify(value));
    else if (field !== "status") assign(field, value);
  }
  assign("updatedAt", changes.updatedAt);
  assign("lastActivityAt", changes.lastActivityAt);
  if (changes.completedAt !== undefined) assign("completedAt", changes.completedAt);
  if (changes.status !== undefined) {
    values[":newStatus"] = changes.status;
    values[":statusPartition"] = sessionStatusPartition(principal.orgId, principal.environment, changes.status);
    assignments.push("#status = :newStatus", "GSI4PK = :statusPartition", "GSI5PK = :statusPartition");
  }

  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(sessionId),
        UpdateExpression: `SET ${assignments.join(", ")}`,
        ConditionExpression:
          "attribute_exists(PK) AND #orgId = :orgId AND #environment = :environment AND #status = :active",
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    );
    return sessionFromItem(result.Attributes ?? {});
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return resolveRejectedUpdate(principal, sessionId, patch, error.Item);
  }
}

/** Explains why the conditional update was refused, or accepts a repeated final update. */
function resolveRejectedUpdate(
  principal: Principal,
  sessionId: string,
  patch: SessionPatch,
  rawItem: Parameters<typeof unmarshall>[0] | undefined,
): Session {
  if (rawItem === undefined) throw new NotFoundError(`Session ${sessionId} not found`);
  const stored = sessionFromItem(unmarshall(rawItem));
  if (!ownsTenantData(principal, stored)) {
    throw new ForbiddenError(`This API key has no access to session ${sessionId}`);
  }
  if (isRepeatOfFinalUpdate(stored, patch)) return stored;
  if (isFinal(stored.status)) {
    throw new ConflictError(
      `Session ${sessionId} is already ${stored.status} and cannot be changed; only an identical repeat of its final update is accepted`,
    );
  }
  // Active and owned, yet the condition failed: the item changed between the
  // check and the write. Let the client retry.
  throw new ConflictError(`Session ${sessionId} was modified concurrently; retry the request`);
}
