/**
 * POST /api/otel/v1/logs: an OTLP/HTTP log exporter's endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` =
 * `<base>/api/otel`). Protobuf or JSON, gzip or not. GenAI event log records (the messages of a model call,
 * emitted apart from its span by e.g. `@opentelemetry/instrumentation-openai`) join the `llm_decision` of
 * their span, whichever of the two arrives first; any other record, and any past what its span keeps
 * (`LIMITS.otlpLogRecordsPerSpan`, `LIMITS.otlpLogBytesPerSpan`), is refused in `partialSuccess` — never a
 * 4xx for the whole export (docs/otel.md). 200 with an ExportLogsServiceResponse.
 */
import { LIMITS } from "../domain/limits.js";
import { apiKeyExportRoute } from "../http/api-key-export-route.js";
import { chargeRateLimit, withinTraceBudget } from "./export-budget.js";
import { ingestLogRecords } from "./ingest-logs.js";
import { LOGS_SIGNAL } from "./logs-signal.js";
import { readExportLogsRequest } from "./otlp-logs.js";
import { decodeOtlpRequest, otlpEncoding } from "./otlp-request.js";
import { exportResponse, partialSuccessOf } from "./otlp-response.js";
import { RETRY_AFTER_SECONDS, retryable } from "./retryable.js";

export const handler = apiKeyExportRoute(
  "ExportLogs",
  { rawBody: { maxBytes: LIMITS.eventBodyBytes }, timeoutRetryAfterSeconds: RETRY_AFTER_SECONDS },
  async ({ caller, rawBody, contentType }) => {
    const encoding = otlpEncoding(contentType, "logs");
    const { records, refused } = readExportLogsRequest(decodeOtlpRequest(rawBody, encoding, LOGS_SIGNAL));
    const { kept } = withinTraceBudget([...new Set(records.map((record) => record.traceId))]);
    const recorded = new Set(kept);
    const overBudget = records
      .filter((record) => !recorded.has(record.traceId))
      .map(() => ({
        message: `An export records at most ${LIMITS.otlpTraces} traces; lower OTEL_BLRP_MAX_EXPORT_BATCH_SIZE`,
      }));
    await chargeRateLimit(caller, kept.length - 1).catch(retryable);
    const overSpanBudget = await ingestLogRecords(
      caller,
      records.filter((record) => recorded.has(record.traceId)),
    ).catch(retryable);
    return exportResponse(encoding, partialSuccessOf([...refused, ...overBudget, ...overSpanBudget], "log record"));
  },
);
