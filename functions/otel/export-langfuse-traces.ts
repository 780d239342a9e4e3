/**
 * POST /api/public/otel/v1/traces: the trace endpoint at the path Langfuse's exporters post to (`@langfuse/otel`'s
 * LangfuseSpanProcessor appends it to `baseUrl`; the Python SDK v3 likewise), so that a team moving from
 * Langfuse changes its base URL and keys and nothing else (docs/langfuse-migration.md). The export is the same
 * as at /api/otel/v1/traces (trace-export.ts); the API key may come as a bearer token or as the password of
 * `Authorization: Basic base64(<public key>:<API key>)`, on this route only.
 */
import { apiKeyExportRoute } from "../http/api-key-export-route.js";
import { exportTraces, TRACE_EXPORT_OPTIONS } from "./trace-export.js";

export const handler = apiKeyExportRoute("ExportLangfuseTraces", TRACE_EXPORT_OPTIONS, exportTraces);
