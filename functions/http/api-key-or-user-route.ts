/**
 * The routes the console calls with a signed-in user's access token and SDK clients with an API key
 * (`apiKeyOrUser`): api-key-or-user-auth.ts decides who calls, then the chain of the API-key routes.
 */
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../route-table.js";
import { apiKeyChain } from "./api-key-chain.js";
import { apiKeyOrUserAuth } from "./api-key-or-user-auth.js";
import { idempotency, isWrite } from "./idempotency.js";
import type { RouteHandler, RouteOptions } from "./route-chain.js";
import { routeOfKind } from "./route-of-kind.js";

export function apiKeyOrUserRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<Principal, z.output<TBody>, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, "apiKeyOrUser");
  if (route.auth.kind !== "apiKeyOrUser") throw new Error(`Route ${routeId} is not an apiKeyOrUser route`);
  const takesIdempotencyKey = isWrite(route) && route.idempotencyKey !== false;
  return apiKeyChain(apiKeyOrUserAuth(route.auth), takesIdempotencyKey ? [idempotency()] : [], options, routeHandler);
}
