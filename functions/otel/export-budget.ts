/**
 * What one OTLP export may cost. Each trace is a session to find or start, so a request records at most
 * LIMITS.otlpTraces traces (the spans of the others are refused, in `partialSuccess`), and spends one
 * rate-limit token per trace it records — the first one the rate-limit middleware already took — so an
 * export of a hundred runs costs what a hundred SDK requests would.
 */
import { RateLimitedError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type { Principal } from "../domain/principal.js";
import { consumeRequest } from "../ratelimit/rate-limiter.js";

/** Takes `units` more tokens from the caller's rate-limit budgets; 429 (with Retry-After) when they run out. */
export async function chargeRateLimit(principal: Principal, units: number, nowMs = Date.now()): Promise<void> {
  for (let charged = 0; charged < units; charged++) {
    const decision = await consumeRequest(principal, nowMs);
    if (!decision.allowed) {
      throw new RateLimitedError(
        `Rate limit of ${decision.limit} requests per minute reached (an OTLP export costs one per trace); retry in ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
  }
}

/** The traces a request records (the first LIMITS.otlpTraces, in request order) and the ones it refuses. */
export function withinTraceBudget<T>(traces: readonly T[]): {
  readonly kept: readonly T[];
  readonly over: readonly T[];
} {
  return { kept: traces.slice(0, LIMITS.otlpTraces), over: traces.slice(LIMITS.otlpTraces) };
}
