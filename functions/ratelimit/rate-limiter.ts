/**
 * Rate limiting per organisation (across all its API keys) and, when the
 * organisation sets a lower one, per key; signed-in users reading through the
 * console spend a budget of their own per organisation (never the keys', so
 * no member can starve ingestion: issue 21). Fixed one-minute windows counted in
 * DynamoDB (keys.ts `rateLimitWindowKey`), consumed in leases. A container
 * takes a lease of up to LEASE_FRACTION of a limit with one conditional ADD
 * and spends it locally, so the table sees one write per lease, not per
 * request: with the default 6,000 requests/minute a lease is 100 tokens, i.e.
 * one write per 100 requests (two when a per-key limit applies too). A global
 * count never exceeds its limit (the ADD is conditional); tokens a container
 * leased but did not spend lapse with their window, so a busy organisation
 * may be refused slightly before its limit, never after.
 */
import type { Principal } from "../domain/principal.js";
import { numberEnv } from "../runtime/env.js";
import { takeWindowTokens } from "../store/events/rate-limit-store.js";
import { keyRateLimitBucket, organisationRateLimitBucket, userRateLimitBucket } from "../store/table/keys.js";

export const WINDOW_MS = 60_000;
/** Requests per minute per organisation (all its keys together) unless it sets its own. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = numberEnv("RATE_LIMIT_PER_MINUTE", 6_000);
/** Requests per minute of one signed-in user in one organisation (the console's reads), apart from the keys'. */
export const CONSOLE_RATE_LIMIT_PER_MINUTE = numberEnv("CONSOLE_RATE_LIMIT_PER_MINUTE", 600);
const LEASE_FRACTION = 1 / 60;
const MAX_LEASE = 100;

/** Which budget a decision is about. */
export type RateLimitScope = "organisation" | "key" | "user";

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** The budget that binds: the one with the fewest requests left (the refusing one when refused). */
  readonly scope: RateLimitScope;
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

interface Bucket {
  readonly id: string;
  readonly scope: RateLimitScope;
  readonly limit: number;
}

const leases = new Map<string, Lease>();

function leaseSize(limit: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(limit * LEASE_FRACTION)));
}

/** Takes up to `size` tokens from the window's global count; how many were granted (0 when exhausted). */
async function takeLease(bucket: Bucket, window: number, size: number, nowMs: number) {
  const { limit } = bucket;
  let request = size;
  while (request > 0) {
    const taken = await takeWindowTokens(bucket.id, window, request, limit, nowMs);
    if (taken.granted) return { granted: request, used: taken.used };
    const used = taken.used ?? limit;
    request = Math.min(request - 1, limit - used);
    if (request <= 0) return { granted: 0, used };
  }
  return { granted: 0, used: limit };
}

/** The container's lease of a bucket for this window, topped up from the table when spent. */
async function leaseOf(bucket: Bucket, window: number, nowMs: number): Promise<Lease> {
  let lease = leases.get(bucket.id);
  if (lease === undefined || lease.window !== window) {
    lease = { window, tokens: 0, used: 0 };
    leases.set(bucket.id, lease);
    if (leases.size > 10_000) leases.clear();
  }
  if (lease.tokens === 0) {
    const taken = await takeLease(bucket, window, leaseSize(bucket.limit), nowMs);
    lease.tokens = taken.granted;
    lease.used = taken.used;
  }
  return lease;
}

/**
 * The budgets a request of this principal spends from: a signed-in user's own console budget; else its
 * organisation's, and its key's when lower.
 */
export function bucketsOf(principal: Principal): Bucket[] {
  if (principal.signedInUserId !== undefined) {
    return [
      {
        id: userRateLimitBucket(principal.orgId, principal.signedInUserId),
        scope: "user",
        limit: CONSOLE_RATE_LIMIT_PER_MINUTE,
      },
    ];
  }
  const organisationLimit = principal.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const buckets: Bucket[] = [
    { id: organisationRateLimitBucket(principal.orgId), scope: "organisation", limit: organisationLimit },
  ];
  const keyLimit = principal.keyRateLimitPerMinute;
  if (keyLimit !== undefined && keyLimit < organisationLimit) {
    buckets.push({ id: keyRateLimitBucket(principal.keyId), scope: "key", limit: keyLimit });
  }
  return buckets;
}

/** Spends one request of every budget of the caller for the current window, or none when one is spent. */
export async function consumeRequest(principal: Principal, nowMs = Date.now()): Promise<RateLimitDecision> {
  const window = Math.floor(nowMs / WINDOW_MS);
  const resetSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000));
  const held: { bucket: Bucket; lease: Lease }[] = [];
  for (const bucket of bucketsOf(principal)) {
    const lease = await leaseOf(bucket, window, nowMs);
    if (lease.tokens === 0) {
      return { allowed: false, scope: bucket.scope, limit: bucket.limit, remaining: 0, resetSeconds };
    }
    held.push({ bucket, lease });
  }
  let binding: RateLimitDecision | undefined;
  for (const { bucket, lease } of held) {
    lease.tokens -= 1;
    const remaining = Math.max(0, bucket.limit - lease.used + lease.tokens);
    if (binding === undefined || remaining < binding.remaining) {
      binding = { allowed: true, scope: bucket.scope, limit: bucket.limit, remaining, resetSeconds };
    }
  }
  if (binding === undefined) throw new Error("A request always has its organisation's budget");
  return binding;
}
