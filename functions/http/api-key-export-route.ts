/**
 * Routes of telemetry exporters with an API key (`apiKey`): the API-key chain without Idempotency-Key
 * records, since each item an export carries names itself (OTLP: span ids), so a retried export
 * stores nothing twice by itself; a function built on it bundles none of the idempotency code.
 */
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../routes.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { apiKeyChain } from "./api-key-chain.js";
import { type RouteHandler, type RouteOptions, routeOfKind } from "./route-chain.js";

export function apiKeyExportRoute<TQuery extends z.ZodMiniType = z.ZodMiniUnknown>(
  routeId: RouteId,
  options: RouteOptions<z.ZodMiniUnknown, TQuery>,
  routeHandler: RouteHandler<Principal, unknown, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, "apiKey");
  if (route.auth.kind !== "apiKey") throw new Error(`Route ${routeId} is not an apiKey route`);
  return apiKeyChain(apiKeyAuth(route.auth), [], options, routeHandler);
}
