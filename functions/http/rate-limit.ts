/**
 * Applies the per-key rate limit (after authentication, before the body is
 * read): 429 with `Retry-After` when the key's budget for the minute is
 * spent, and `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset`
 * on every answer to an authenticated request — successes, errors and
 * idempotent replays alike. The headers are put on by {@link attachRateLimitHeaders},
 * a hook the chain runs at the very end of every request: middy skips `after`
 * for responses given early by a `before` (replays) and runs `onError` before the
 * error mapper has built the response, so neither hook could see every answer.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { RateLimitedError } from "../domain/errors.js";
import { consumeRequest, type RateLimitDecision } from "../ratelimit/rate-limiter.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

const SCOPE_NAMES: Readonly<Record<RateLimitDecision["scope"], string>> = {
  organisation: "this organisation",
  key: "this API key",
  user: "your console requests in this organisation",
};

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(decision.resetSeconds),
  };
}

export function rateLimit(): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  async function rateLimitBefore(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const principal = request.event.principal;
    if (principal === undefined) return;
    const decision = await consumeRequest(principal);
    request.event.rateLimit = decision;
    if (!decision.allowed) {
      throw new RateLimitedError(
        `Rate limit of ${decision.limit} requests per minute for ${SCOPE_NAMES[decision.scope]} reached; retry in ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
  }
  return { before: rateLimitBefore };
}

/** End-of-request hook (see the module comment): the rate-limit headers onto the final response, whatever it is. */
export function attachRateLimitHeaders(request: Request<SdkEvent, HttpResult, Error, Context>): void {
  const decision = request.event.rateLimit;
  const response = request.response;
  if (decision === undefined || response == null) return;
  // The very object middy returns: the hook runs after the response was settled, so it is amended in place.
  response.headers = { ...response.headers, ...rateLimitHeaders(decision) };
}
