/**
 * POST /api/otel/v1/traces: an OTLP/HTTP trace exporter's endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` =
 * `<base>/api/otel`). Protobuf or JSON, gzip or not; spans of GenAI agents become sessions and events
 * (docs/otel.md). 200 with an ExportTraceServiceResponse, whose `partialSuccess` counts refused spans.
 */
import { AtsError, UnavailableError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import { apiKeyExportRoute } from "../http/api-key-export-route.js";
import { logError } from "../runtime/log.js";
import { ingestSpans } from "./ingest-spans.js";
import { decodeOtlpRequest, otlpEncoding } from "./otlp-request.js";
import { exportResponse, partialSuccessOf } from "./otlp-response.js";
import { readExportRequest } from "./otlp-spans.js";
import { TRACE_SIGNAL } from "./trace-signal.js";

/** Seconds an exporter waits before retrying an export the service could not finish. */
const RETRY_AFTER_SECONDS = 2;

/**
 * A failure of the service itself (DynamoDB unavailable, a write that kept conflicting) becomes a 503 with
 * Retry-After, which OTLP exporters retry — they drop an export answered 500. A retry is safe: every
 * span's events are keyed by its id. The cause is logged here, since the client sees only the 503.
 */
function retryable(error: unknown): never {
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

export const handler = apiKeyExportRoute(
  "ExportTraces",
  { rawBody: { maxBytes: LIMITS.eventBodyBytes } },
  async ({ caller, rawBody, contentType, recordIngested }) => {
    const encoding = otlpEncoding(contentType);
    const { spans, refused } = readExportRequest(decodeOtlpRequest(rawBody, encoding, TRACE_SIGNAL));
    const outcome = await ingestSpans(caller, spans).catch(retryable);
    recordIngested(outcome.storedEvents);
    return exportResponse(encoding, partialSuccessOf([...refused, ...outcome.refused]));
  },
);
