/**
 * How the OTLP routes answer a failure of the service itself (DynamoDB unavailable, a write that kept
 * conflicting, a request about to run past the function's timeout): 503 with Retry-After, which OTLP
 * exporters retry — they drop an export answered 500. A retry is safe: everything an export stores is keyed
 * by its spans and log records, so the retry finds what was stored and stores nothing twice.
 */
import { AtsError, UnavailableError } from "../domain/errors.js";
import { logError } from "../runtime/log.js";

/** Seconds an exporter waits before retrying an export the service could not finish. */
export const RETRY_AFTER_SECONDS = 2;

/** Rethrows the service's own refusals as they are, anything else as a 503 (the cause logged here). */
export function retryable(error: unknown): never {
  if (error instanceof AtsError) throw error;
  logError("OTLP export not finished; answered 503 so the exporter retries", error);
  throw new UnavailableError(
    "The export could not be stored now; retry after the Retry-After delay",
    RETRY_AFTER_SECONDS,
    {
      cause: error,
    },
  );
}
