/**
 * POST /api/otel/v1/traces: an OTLP/HTTP trace exporter's endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` =
 * `<base>/api/otel`). Protobuf or JSON, gzip or not; spans of GenAI agents become sessions and events
 * (docs/otel.md). 200 with an ExportTraceServiceResponse, whose `partialSuccess` counts refused spans.
 */
import { LIMITS } from "../domain/limits.js";
import { apiKeyExportRoute } from "../http/api-key-export-route.js";
import { ingestSpans } from "./ingest-spans.js";
import { decodeExportRequest, otlpEncoding } from "./otlp-request.js";
import { exportResponse, partialSuccessOf } from "./otlp-response.js";
import { readExportRequest } from "./otlp-spans.js";

export const handler = apiKeyExportRoute(
  "ExportTraces",
  { rawBody: { maxBytes: LIMITS.eventBodyBytes } },
  async ({ caller, rawBody, contentType, recordIngested }) => {
    const encoding = otlpEncoding(contentType);
    const { spans, refused } = readExportRequest(decodeExportRequest(rawBody, encoding));
    const outcome = await ingestSpans(caller, spans);
    recordIngested(outcome.storedEvents);
    return exportResponse(encoding, partialSuccessOf([...refused, ...outcome.refused]));
  },
);
