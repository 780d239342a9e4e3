/** Which failures a retry can fix. */

/**
 * Network errors and these statuses are retried: 408 (timeout), 425, 429 (rate
 * limited), every 5xx, and the 409 that says a request with the same
 * Idempotency-Key is still being processed. Any other 4xx (a 409 for a session
 * ended differently, say) is the request's own fault and is reported instead.
 */
export function isRetryableStatus(status: number, body: unknown): boolean {
  if (status === 409) return isIdempotencyInProgress(body);
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

function isIdempotencyInProgress(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const message = (body as { message?: unknown }).message;
  return (
    typeof message === "string" && message.includes("Idempotency-Key") && message.includes("still being processed")
  );
}
