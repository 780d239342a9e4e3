/**
 * Persistence of events. An event item lives in its session's partition
 * (`SESSION#<sessionId>` / `EVENT#<eventId>`), and is written in one
 * transaction with the session's counters, so the two never disagree.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { ForbiddenError, NotFoundError } from "../domain/errors.js";
import type { AgentEvent, NewEvent } from "../domain/event.js";
import { isId, newId } from "../domain/ids.js";
import { ownsTenantData, type Principal } from "../domain/principal.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { eventKey, sessionKey } from "./keys.js";
import { expiryEpochSeconds } from "./retention.js";

export const EVENT_ENTITY = "event";

/**
 * Records an event against a session of the principal's tenant, and in the
 * same transaction adds it to the session's `eventCount` and `eventCost` and
 * moves `lastActivityAt`. Sessions in a final state still accept events (a
 * client's late flush must not be lost).
 */
export async function createEvent(principal: Principal, input: NewEvent, nowMs = Date.now()): Promise<AgentEvent> {
  if (!isId("session", input.sessionId)) throw new NotFoundError(`Session ${input.sessionId} not found`);
  const now = new Date(nowMs).toISOString();
  const event: AgentEvent = {
    ...input,
    id: newId("event", nowMs),
    orgId: principal.orgId,
    environment: principal.environment,
    createdAt: now,
  };
  const { toolInput, toolOutput, ...stored } = event;
  const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);

  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName,
              Key: sessionKey(input.sessionId),
              UpdateExpression: "ADD eventCount :one, eventCost :cost SET lastActivityAt = :now, #ttl = :ttl",
              ConditionExpression: "attribute_exists(PK) AND orgId = :orgId AND #environment = :environment",
              ExpressionAttributeNames: { "#ttl": "ttl", "#environment": "environment" },
              ExpressionAttributeValues: {
                ":one": 1,
                ":cost": input.estimatedCost ?? 0,
                ":now": now,
                ":ttl": ttl,
                ":orgId": principal.orgId,
                ":environment": principal.environment,
              },
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: {
                ...eventKey(input.sessionId, event.id),
                entity: EVENT_ENTITY,
                ...stored,
                toolInputJson: toolInput === undefined ? undefined : JSON.stringify(toolInput),
                toolOutputJson: toolOutput === undefined ? undefined : JSON.stringify(toolOutput),
                ttl,
              },
              ConditionExpression: "attribute_not_exists(PK)",
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const sessionCheck = error.CancellationReasons?.[0];
      if (sessionCheck?.Code === "ConditionalCheckFailed") {
        throw rejectionFor(principal, input.sessionId, sessionCheck.Item);
      }
    }
    throw error;
  }
  return event;
}

function rejectionFor(
  principal: Principal,
  sessionId: string,
  rawItem: Parameters<typeof unmarshall>[0] | undefined,
): Error {
  if (rawItem === undefined) return new NotFoundError(`Session ${sessionId} not found`);
  const stored = unmarshall(rawItem) as { orgId: string; environment: string };
  if (!ownsTenantData(principal, stored)) {
    return new ForbiddenError(`This API key has no access to session ${sessionId}`);
  }
  return new Error(`Session ${sessionId} failed its write condition without a reason`);
}
