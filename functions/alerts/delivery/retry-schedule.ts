/**
 * When a failed delivery is tried again: after 30 s, 2 min, 10 min, 30 min and 1 h (six attempts over about
 * 1 h 43 min), then given up (on AWS the job goes to the dead-letter queue). `ALERT_DELIVERY_RETRY_DELAYS_MS`
 * (comma-separated milliseconds) replaces the schedule — the tests use a few milliseconds. Pure but for that read.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 600_000, 1_800_000, 3_600_000];

/** Parses a schedule setting; throws on anything but non-negative whole milliseconds (at most 10 retries). */
export function parseRetryDelays(text: string): number[] {
  const parts = text.split(",").map((part) => part.trim());
  const delays = parts.map(Number);
  if (
    parts.length > 10 ||
    parts.some((part) => !/^\d{1,8}$/.test(part)) ||
    delays.some((delay) => delay > 43_200_000)
  ) {
    throw new Error(`ALERT_DELIVERY_RETRY_DELAYS_MS must list at most 10 whole milliseconds up to 12 h, got "${text}"`);
  }
  return delays;
}

export function retryDelays(): readonly number[] {
  const setting = process.env.ALERT_DELIVERY_RETRY_DELAYS_MS;
  return setting === undefined || setting === "" ? DEFAULT_RETRY_DELAYS_MS : parseRetryDelays(setting);
}

/** The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed, or undefined: no more attempts. */
export function delayAfterFailedAttempt(
  attempt: number,
  delays: readonly number[] = retryDelays(),
): number | undefined {
  return delays[attempt - 1];
}

/** The time a delivery waits at most for an answer (`ALERT_DELIVERY_TIMEOUT_MS`, default 10 s). */
export function deliveryTimeoutMs(): number {
  const setting = Number(process.env.ALERT_DELIVERY_TIMEOUT_MS ?? "");
  return Number.isInteger(setting) && setting > 0 ? setting : 10_000;
}

/** SQS's longest message delay. */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * How a wait of `delayMs` rides on SQS: the message's delay (at most 15 minutes), and for a longer wait the time
 * before which the worker must not try (it sends the message on with what is left).
 */
export function sqsSchedule(delayMs: number, nowMs: number): { delaySeconds: number; notBefore?: number } {
  const delaySeconds = Math.min(SQS_MAX_DELAY_SECONDS, Math.ceil(Math.max(0, delayMs) / 1000));
  return delayMs > SQS_MAX_DELAY_SECONDS * 1000 ? { delaySeconds, notBefore: nowMs + delayMs } : { delaySeconds };
}

/** What is left of a job's wait at `nowMs` (0: due; within a second counts as due). */
export function remainingWait(notBefore: number | undefined, nowMs: number): number {
  if (notBefore === undefined || notBefore <= nowMs + 1000) return 0;
  return notBefore - nowMs;
}
