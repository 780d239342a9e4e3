/**
 * Applies the per-key rate limit (after authentication, before the body is
 * read): 429 with `Retry-After` when the key's budget for the minute is
 * spent, and `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset`
 * on every answer.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { RateLimitedError } from "../domain/errors.js";
import { consumeRequest, type RateLimitDecision } from "../ratelimit/rate-limiter.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

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
        `Rate limit of ${decision.limit} requests per minute for this API key reached; retry in ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
  }
  function rateLimitAfter(request: Request<SdkEvent, HttpResult, Error, Context>): void {
    const decision = request.event.rateLimit;
    if (decision === undefined || request.response == null) return;
    request.response = { ...request.response, headers: { ...request.response.headers, ...rateLimitHeaders(decision) } };
  }
  return { before: rateLimitBefore, after: rateLimitAfter };
}
