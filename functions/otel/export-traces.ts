/**
 * POST /api/otel/v1/traces: an OTLP/HTTP trace exporter's endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` =
 * `<base>/api/otel`). Protobuf or JSON, gzip or not; spans of GenAI agents, in any of the dialects
 * (dialects/), become sessions and events (docs/otel.md; trace-export.ts). 200 with an
 * ExportTraceServiceResponse, whose `partialSuccess` counts refused spans.
 */
import { apiKeyExportRoute } from "../http/api-key-export-route.js";
import { exportTraces, TRACE_EXPORT_OPTIONS } from "./trace-export.js";

export const handler = apiKeyExportRoute("ExportTraces", TRACE_EXPORT_OPTIONS, exportTraces);
