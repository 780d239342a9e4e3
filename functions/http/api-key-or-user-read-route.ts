/**
 * The `apiKeyOrUser` routes that take no `Idempotency-Key` (every GET, and a POST that only reads, such as
 * `POST /api/sdk/metrics`): the chain of api-key-or-user-route.ts without the idempotency middleware, so their
 * bundles never load the idempotency store. A route that takes a key is refused when its handler is built.
 */
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../route-table.js";
import { apiKeyChain } from "./api-key-chain.js";
import { apiKeyOrUserAuth } from "./api-key-or-user-auth.js";
import type { RouteHandler, RouteOptions } from "./route-chain.js";
import { routeOfKind } from "./route-of-kind.js";
import { isWrite } from "./write-methods.js";

export function apiKeyOrUserReadRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<Principal, z.output<TBody>, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, "apiKeyOrUser");
  if (route.auth.kind !== "apiKeyOrUser") throw new Error(`Route ${routeId} is not an apiKeyOrUser route`);
  if (isWrite(route) && route.idempotencyKey !== false)
    throw new Error(`Route ${routeId} takes an Idempotency-Key: build it with apiKeyOrUserRoute`);
  return apiKeyChain(apiKeyOrUserAuth(route.auth), [], options, routeHandler);
}
