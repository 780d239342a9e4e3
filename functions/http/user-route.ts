/**
 * Routes called by signed-in users: for an organisation (`user`: key and member management; access
 * token and role) or for themselves (`signedIn`: `GET /api/me`; access token only). Every answer carries
 * `Cache-Control: no-store` (no-store.ts).
 */
import type * as z from "zod/mini";
import { authenticateSignedInUser, type SignedInUser } from "../auth/user-authenticator.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import type { RouteId } from "../route-table.js";
import { attachNoStore } from "./no-store.js";
import { type ChainMiddleware, type RouteHandler, type RouteOptions, routeChain, validated } from "./route-chain.js";
import { routeOfKind } from "./route-of-kind.js";
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
  return routeChain(options, [userAuth(route.auth)], [], [attachNoStore]).handler(async function runUserRoute(event) {
    if (event.user === undefined) throw new Error("userAuth did not run before the handler");
    return routeHandler({ caller: event.user, ...validated<TBody, TQuery>(event) });
  });
}

/** Signed-in user authentication without an organisation (`signedIn` routes). */
function signedInAuth(): ChainMiddleware {
  async function signedInAuthBefore(request: Parameters<NonNullable<ChainMiddleware["before"]>>[0]): Promise<void> {
    request.event.signedIn = await authenticateSignedInUser(request.event.headers?.authorization);
  }
  return { before: signedInAuthBefore };
}

export function signedInRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<SignedInUser, z.output<TBody>, z.output<TQuery>>,
) {
  routeOfKind(routeId, "signedIn");
  return routeChain(options, [signedInAuth()], [], [attachNoStore]).handler(async function runSignedInRoute(event) {
    if (event.signedIn === undefined) throw new Error("signedInAuth did not run before the handler");
    return routeHandler({ caller: event.signedIn, ...validated<TBody, TQuery>(event) });
  });
}
