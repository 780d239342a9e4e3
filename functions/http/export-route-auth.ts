/**
 * Who may call the telemetry exporters' routes (OTLP traces and logs): an API key with `events:write`, as
 * for the SDK's event writes. The route table uses this very value for those routes, and their handlers
 * take it from here rather than looking their route up in the table (api-key-export-route.ts): the table,
 * with every route's grants, is the largest module a function would bundle, and the export functions are
 * the ones nearest their bundle budget. Imports nothing at run time, as the table asks of its imports.
 */
import type { Scope } from "../domain/scopes.js";

export const EXPORT_ROUTE_AUTH = { kind: "apiKey", scope: "events:write" } as const satisfies {
  readonly kind: "apiKey";
  readonly scope: Scope;
};

/**
 * Langfuse's exporter (`@langfuse/otel`'s LangfuseSpanProcessor, the Python SDK v3) at its own path: the same,
 * and the key may also come as the password of `Authorization: Basic base64(<public key>:<API key>)` — on this
 * route only (docs/langfuse-migration.md, docs/decisions.md).
 */
export const LANGFUSE_EXPORT_ROUTE_AUTH = { kind: "apiKey", scope: "events:write", basic: true } as const satisfies {
  readonly kind: "apiKey";
  readonly scope: Scope;
  readonly basic: true;
};

/** Whether a route's authorisation is an exporter's (no Idempotency-Key: each span names itself). */
export function isExportRouteAuth(auth: unknown): boolean {
  return auth === EXPORT_ROUTE_AUTH || auth === LANGFUSE_EXPORT_ROUTE_AUTH;
}
