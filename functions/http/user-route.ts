/**
 * Routes called by signed-in users: for an organisation (`user`: key and member management; access
 * token and role) or for themselves (`signedIn`: `GET /api/me`; access token only). Every answer carries
 * `Cache-Control: no-store` (no-store.ts).
 */
import type * as z from "zod/mini";
import { authenticateSignedInUser, type SignedInUser } from "../auth/user-authenticator.js";
import type { Environment } from "../domain/api-key.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import type { RouteId } from "../route-table.js";
import { environmentOfHeader } from "./environment-header.js";
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

/** A signed-in user acting in one environment of an organisation (`X-Environment`). */
export interface UserTenantPrincipal extends UserPrincipal {
  readonly environment: Environment;
}

/**
 * A `user` route whose data belongs to one environment of the organisation (the route table's
 * `environmentHeader`: the alerts' monitors): as userRoute, and the caller's `X-Environment` (`live` unless it
 * says `test`; 400 otherwise).
 */
export function userTenantRoute<
  TBody extends z.ZodMiniType = z.ZodMiniUnknown,
  TQuery extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<UserTenantPrincipal, z.output<TBody>, z.output<TQuery>>,
) {
  const route = routeOfKind(routeId, "user");
  if (route.auth.kind !== "user" || route.environmentHeader !== true) {
    throw new Error(`Route ${routeId} is not a user route of one environment`);
  }
  return routeChain(options, [userAuth(route.auth)], [], [attachNoStore]).handler(
    async function runUserTenantRoute(event) {
      if (event.user === undefined) throw new Error("userAuth did not run before the handler");
      const environment = environmentOfHeader(event.headers?.["x-environment"]);
      return routeHandler({ caller: { ...event.user, environment }, ...validated<TBody, TQuery>(event) });
    },
  );
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
