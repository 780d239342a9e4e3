/**
 * What an OTLP trace export does, whichever path it came by (export-traces.ts at `/api/otel/v1/traces`,
 * export-langfuse-traces.ts at Langfuse's `/api/public/otel/v1/traces`): decode the spans, read them through
 * the dialects (dialects/), plan one session per trace within the export's budget, store, and answer with an
 * ExportTraceServiceResponse whose `partialSuccess` counts refused spans.
 */
import { planTraces } from "../domain/genai-trace-plan.js";
import { LIMITS } from "../domain/limits.js";
import type { Principal } from "../domain/principal.js";
import type { HttpResult } from "../http/sdk-event.js";
import { normaliseSpan } from "./dialects/normalise.js";
import { chargeRateLimit, withinTraceBudget } from "./export-budget.js";
import { ingestSpans } from "./ingest-spans.js";
import { decodeOtlpRequest, otlpEncoding } from "./otlp-request.js";
import { exportResponse, partialSuccessOf } from "./otlp-response.js";
import { readExportRequest, type SpanRefusal } from "./otlp-spans.js";
import { RETRY_AFTER_SECONDS, retryable } from "./retryable.js";
import { TRACE_SIGNAL } from "./trace-signal.js";

/** The route options of a trace export: its raw body's bound, and the Retry-After of a timeout. */
export const TRACE_EXPORT_OPTIONS = {
  rawBody: { maxBytes: LIMITS.eventBodyBytes },
  timeoutRetryAfterSeconds: RETRY_AFTER_SECONDS,
} as const;

export async function exportTraces({
  caller,
  rawBody,
  contentType,
  recordIngested,
}: {
  readonly caller: Principal;
  readonly rawBody: Buffer;
  readonly contentType: string | undefined;
  readonly recordIngested: (storedEvents: number) => void;
}): Promise<HttpResult> {
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
}
