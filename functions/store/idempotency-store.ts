/**
 * Idempotency records (IETF draft "The Idempotency-Key HTTP Header Field"),
 * one item per tenant (organisation + environment) and key
 * (keys.ts `requestIdempotencyKey`): a test key can neither replay nor pre-claim
 * a live key's requests. A record is
 * claimed (in flight, with a short lock) before the handler runs, completed
 * with the response after, and expires by TTL 24 hours after its first use.
 * A claim also fixes the id the request will create, so a request retried
 * after a crash writes the same item again instead of a second one.
 */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { Environment } from "../domain/api-key.js";
import { ulid } from "../domain/ids.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { requestIdempotencyKey } from "./keys.js";

/** How long replays are answered. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** How long a claimed request counts as in flight (a little over the function timeout). */
export const IN_FLIGHT_LOCK_MS = 15_000;

export interface StoredResponse {
  readonly statusCode: number;
  readonly body: string;
  readonly contentType?: string | undefined;
}

export type Claim =
  | { readonly outcome: "claimed"; readonly plannedUlid: string }
  | { readonly outcome: "replay"; readonly response: StoredResponse }
  | { readonly outcome: "in_flight" }
  | { readonly outcome: "mismatch" };

/** Whose record it is: the caller's organisation and environment. */
export interface IdempotencyTenant {
  readonly orgId: string;
  readonly environment: Environment;
}

/** Claims `key` for a request with this fingerprint, or says why it cannot be claimed. */
export async function claim(
  owner: IdempotencyTenant,
  key: string,
  fingerprint: string,
  nowMs = Date.now(),
): Promise<Claim> {
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: requestIdempotencyKey(owner.orgId, owner.environment, key),
        UpdateExpression:
          "SET #state = :inFlight, lockedUntil = :lock, fingerprint = if_not_exists(fingerprint, :fingerprint), plannedUlid = if_not_exists(plannedUlid, :ulid), #ttl = if_not_exists(#ttl, :ttl), entity = :entity",
        ConditionExpression:
          "attribute_not_exists(PK) OR (#state = :inFlight AND lockedUntil < :now AND fingerprint = :fingerprint)",
        ExpressionAttributeNames: { "#state": "state", "#ttl": "ttl" },
        ExpressionAttributeValues: {
          ":inFlight": "in_flight",
          ":lock": nowMs + IN_FLIGHT_LOCK_MS,
          ":now": nowMs,
          ":fingerprint": fingerprint,
          ":ulid": ulid(nowMs),
          ":ttl": Math.floor(nowMs / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
          ":entity": "idempotencyRecord",
        },
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    );
    return { outcome: "claimed", plannedUlid: String(result.Attributes?.plannedUlid) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException) || error.Item === undefined) throw error;
    const existing = unmarshall(error.Item);
    if (typeof existing.ttl === "number" && existing.ttl <= Math.floor(nowMs / 1000)) {
      // Expired but not yet removed by TTL: a new request under an old key.
      await release(owner, key, { forget: true });
      return claim(owner, key, fingerprint, nowMs);
    }
    if (existing.fingerprint !== fingerprint) return { outcome: "mismatch" };
    if (existing.state === "completed") return { outcome: "replay", response: existing.response as StoredResponse };
    return { outcome: "in_flight" };
  }
}

/** Records the response a claimed request produced; replays answer with it. */
export async function complete(owner: IdempotencyTenant, key: string, response: StoredResponse): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: requestIdempotencyKey(owner.orgId, owner.environment, key),
      UpdateExpression: "SET #state = :completed, #response = :response REMOVE lockedUntil",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeNames: { "#state": "state", "#response": "response" },
      ExpressionAttributeValues: { ":completed": "completed", ":response": response },
    }),
  );
}

/**
 * Gives up a claim after a failure the client should retry: the lock is
 * released at once (the planned id is kept, so the retry writes the same item);
 * `forget` removes the record entirely.
 */
export async function release(
  owner: IdempotencyTenant,
  key: string,
  options: { forget?: boolean } = {},
): Promise<void> {
  if (options.forget) {
    await documentClient.send(
      new DeleteCommand({ TableName: tableName, Key: requestIdempotencyKey(owner.orgId, owner.environment, key) }),
    );
    return;
  }
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: requestIdempotencyKey(owner.orgId, owner.environment, key),
      UpdateExpression: "SET lockedUntil = :zero",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":zero": 0 },
    }),
  );
}
