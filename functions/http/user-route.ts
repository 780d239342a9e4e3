/** Routes called by signed-in users (key management): access token and role. */
import type * as z from "zod/mini";
import type { UserPrincipal } from "../domain/user-principal.js";
import type { RouteId } from "../routes.js";
import { type RouteHandler, type RouteOptions, routeChain, routeOfKind, validated } from "./route-chain.js";
import { userAuth } from "./user-auth.js";

export function userRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<UserPrincipal, z.output<TBody>, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, "user");
  if (route.auth.kind !== "user") throw new Error(`Route ${routeId} is not a user route`);
  return routeChain(options, [userAuth(route.auth)]).handler(async function runUserRoute(event) {
    if (event.user === undefined) throw new Error("userAuth did not run before the handler");
    return routeHandler({ caller: event.user, ...validated<TBody, TQuery>(event) });
  });
}
