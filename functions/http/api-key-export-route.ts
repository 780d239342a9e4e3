/**
 * Routes of telemetry exporters with an API key (`apiKey`): the API-key chain without Idempotency-Key
 * records, since each item an export carries names itself (OTLP: span ids, log records), so a retried
 * export stores nothing twice by itself; a function built on it bundles none of the idempotency code — nor
 * the route table: their authorisation is EXPORT_ROUTE_AUTH, which the table's entries for them use too
 * (its entries for them are this very value).
 */
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../route-table.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { apiKeyChain } from "./api-key-chain.js";
import { EXPORT_ROUTE_AUTH, LANGFUSE_EXPORT_ROUTE_AUTH } from "./export-route-auth.js";
import type { RouteHandler, RouteOptions } from "./route-chain.js";

/** The export routes of the route table. */
export type ExportRouteId = Extract<RouteId, "ExportTraces" | "ExportLangfuseTraces" | "ExportLogs">;

export function apiKeyExportRoute<TQuery extends z.ZodMiniType = z.ZodMiniUnknown>(
  routeId: ExportRouteId,
  options: RouteOptions<z.ZodMiniUnknown, TQuery>,
  routeHandler: RouteHandler<Principal, unknown, z.output<TQuery>>,
) {
  const auth = routeId === "ExportLangfuseTraces" ? LANGFUSE_EXPORT_ROUTE_AUTH : EXPORT_ROUTE_AUTH;
  return apiKeyChain(apiKeyAuth(auth), [], options, routeHandler);
}
