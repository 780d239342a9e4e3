/** When to try again: exponential backoff with full jitter, never sooner than the service's `Retry-After`. */

export interface BackoffPolicy {
  /** The first retry waits up to this long. */
  readonly baseDelayMs: number;
  /** No wait is longer than this. */
  readonly maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 250, maxDelayMs: 30_000 };

/**
 * The wait before retry number `retry` (0 for the first): a uniformly random
 * time between 0 and `min(max, base · 2^retry)` ("full jitter", so clients that
 * failed together do not retry together), raised to `Retry-After` when the
 * service sent one.
 */
export function retryDelayMs(
  retry: number,
  policy: BackoffPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retry, 30));
  const jittered = Math.floor(random() * ceiling);
  if (retryAfterMs === undefined) return jittered;
  return Math.min(Math.max(jittered, retryAfterMs), Math.max(policy.maxDelayMs, retryAfterMs));
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; `undefined` when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/^[A-Za-z]{3}, /.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
