/**
 * POST /api/otel/v1/traces: an OTLP/HTTP trace exporter's endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` =
 * `<base>/api/otel`). Protobuf or JSON, gzip or not; spans of GenAI agents, in any of the dialects
 * (dialects/), become sessions and events (docs/otel.md). 200 with an ExportTraceServiceResponse, whose
 * `partialSuccess` counts refused spans.
 */
import { planTraces } from "../domain/genai-trace-plan.js";
import { LIMITS } from "../domain/limits.js";
import { apiKeyExportRoute } from "../http/api-key-export-route.js";
import { normaliseSpan } from "./dialects/normalise.js";
import { chargeRateLimit, withinTraceBudget } from "./export-budget.js";
import { ingestSpans } from "./ingest-spans.js";
import { decodeOtlpRequest, otlpEncoding } from "./otlp-request.js";
import { exportResponse, partialSuccessOf } from "./otlp-response.js";
import { readExportRequest, type SpanRefusal } from "./otlp-spans.js";
import { RETRY_AFTER_SECONDS, retryable } from "./retryable.js";
import { TRACE_SIGNAL } from "./trace-signal.js";

export const handler = apiKeyExportRoute(
  "ExportTraces",
  { rawBody: { maxBytes: LIMITS.eventBodyBytes }, timeoutRetryAfterSeconds: RETRY_AFTER_SECONDS },
  async ({ caller, rawBody, contentType, recordIngested }) => {
    const encoding = otlpEncoding(contentType);
    const { spans, refused } = readExportRequest(decodeOtlpRequest(rawBody, encoding, TRACE_SIGNAL));
    const { kept, over } = withinTraceBudget(planTraces(spans.map(normaliseSpan)));
    const overBudget: SpanRefusal[] = over.flatMap((plan) =>
      plan.spanIds.map((spanId) => ({
        traceId: plan.traceId,
        spanId,
        message: `An export records at most ${LIMITS.otlpTraces} traces; lower OTEL_BSP_MAX_EXPORT_BATCH_SIZE`,
      })),
    );
    await chargeRateLimit(caller, kept.length - 1).catch(retryable);
    const outcome = await ingestSpans(caller, kept).catch(retryable);
    recordIngested(outcome.storedEvents);
    return exportResponse(encoding, partialSuccessOf([...refused, ...overBudget, ...outcome.refused]));
  },
);
