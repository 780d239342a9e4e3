/**
 * Per-API-key rate limiting: a fixed one-minute window counted in DynamoDB
 * (`RATELIMIT#<keyId>#<window>`), consumed in leases. A container takes a
 * lease of up to LEASE_FRACTION of the limit with one conditional ADD and
 * spends it locally, so the table sees one write per lease, not per request:
 * with the default 6,000 requests/minute a lease is 100 tokens, i.e. one
 * write per 100 requests. The global count never exceeds the limit (the ADD
 * is conditional); tokens a container leased but did not spend lapse with
 * their window, so a busy key may be refused slightly before the limit.
 */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { Principal } from "../domain/principal.js";
import { numberEnv } from "../runtime/env.js";
import { documentClient, tableName } from "../store/dynamo-client.js";

export const WINDOW_MS = 60_000;
/** Requests per minute per key unless the organisation sets its own. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = numberEnv("RATE_LIMIT_PER_MINUTE", 6_000);
const LEASE_FRACTION = 1 / 60;
const MAX_LEASE = 100;

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in this window (an estimate across containers). */
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

interface Lease {
  readonly window: number;
  tokens: number;
  /** The window's global count after this container's last lease. */
  used: number;
}

const leases = new Map<string, Lease>();

function leaseSize(limit: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(limit * LEASE_FRACTION)));
}

/** Takes up to `size` tokens from the window's global count; how many were granted (0 when exhausted). */
async function takeLease(keyId: string, window: number, limit: number, size: number, nowMs: number) {
  const key = { PK: `RATELIMIT#${keyId}#${window}`, SK: "RATELIMIT" };
  let request = size;
  while (request > 0) {
    try {
      const result = await documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: "ADD used :n SET #ttl = if_not_exists(#ttl, :ttl), entity = :entity",
          ConditionExpression: "attribute_not_exists(used) OR used <= :ceiling",
          ExpressionAttributeNames: { "#ttl": "ttl" },
          ExpressionAttributeValues: {
            ":n": request,
            ":ceiling": limit - request,
            ":ttl": Math.floor(nowMs / 1000) + 3 * 60,
            ":entity": "rateLimitWindow",
          },
          ReturnValues: "UPDATED_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
      return { granted: request, used: Number(result.Attributes?.used ?? request) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const used = Number(error.Item === undefined ? limit : (unmarshall(error.Item).used ?? limit));
      request = Math.min(request - 1, limit - used);
      if (request <= 0) return { granted: 0, used };
    }
  }
  return { granted: 0, used: limit };
}

/** Spends one request of the key's budget for the current window. */
export async function consumeRequest(principal: Principal, nowMs = Date.now()): Promise<RateLimitDecision> {
  const limit = principal.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const window = Math.floor(nowMs / WINDOW_MS);
  const resetSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000));
  let lease = leases.get(principal.keyId);
  if (lease === undefined || lease.window !== window) {
    lease = { window, tokens: 0, used: 0 };
    leases.set(principal.keyId, lease);
    if (leases.size > 10_000) leases.clear();
  }
  if (lease.tokens === 0) {
    const taken = await takeLease(principal.keyId, window, limit, leaseSize(limit), nowMs);
    lease.tokens = taken.granted;
    lease.used = taken.used;
  }
  if (lease.tokens === 0) return { allowed: false, limit, remaining: 0, resetSeconds };
  lease.tokens -= 1;
  return { allowed: true, limit, remaining: Math.max(0, limit - lease.used + lease.tokens), resetSeconds };
}
