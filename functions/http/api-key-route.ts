/**
 * Routes called by SDK clients with an API key (`apiKey`: scope check, rate limit, Idempotency-Key),
 * and the read routes the console also calls with a user's access token (`apiKeyOrUser`: the same
 * chain, with api-key-or-user-auth.ts deciding who calls).
 */
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../routes.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { apiKeyOrUserAuth } from "./api-key-or-user-auth.js";
import { idempotency } from "./idempotency.js";
import { attachRateLimitHeaders, rateLimit } from "./rate-limit.js";
import { type RouteHandler, type RouteOptions, routeChain, routeOfKind, validated } from "./route-chain.js";

export function apiKeyRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<Principal, z.output<TBody>, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, ["apiKey", "apiKeyOrUser"]);
  const authentication =
    route.auth.kind === "apiKey"
      ? apiKeyAuth(route.auth)
      : route.auth.kind === "apiKeyOrUser"
        ? apiKeyOrUserAuth(route.auth)
        : undefined;
  if (authentication === undefined) throw new Error(`Route ${routeId} is not an apiKey route`);
  const writes = route.method === "POST" || route.method === "PATCH";
  return routeChain(options, [authentication, rateLimit()], writes ? [idempotency()] : [], [
    attachRateLimitHeaders,
  ]).handler(async function runApiKeyRoute(event) {
    if (event.principal === undefined) throw new Error("apiKeyAuth did not run before the handler");
    return routeHandler({ caller: event.principal, ...validated<TBody, TQuery>(event) });
  });
}
