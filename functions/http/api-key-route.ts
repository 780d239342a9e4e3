/**
 * Routes called by SDK clients with an API key (`apiKey`: scope check, rate limit, Idempotency-Key).
 * The read routes the console also calls with a user's access token are api-key-or-user-route.ts.
 */
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../route-table.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { apiKeyChain } from "./api-key-chain.js";
import { idempotency, isWrite } from "./idempotency.js";
import type { RouteHandler, RouteOptions } from "./route-chain.js";
import { routeOfKind } from "./route-of-kind.js";

export function apiKeyRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<Principal, z.output<TBody>, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, "apiKey");
  if (route.auth.kind !== "apiKey") throw new Error(`Route ${routeId} is not an apiKey route`);
  const takesIdempotencyKey = isWrite(route) && route.idempotencyKey !== false;
  return apiKeyChain(apiKeyAuth(route.auth), takesIdempotencyKey ? [idempotency()] : [], options, routeHandler);
}
