/**
 * The one middy chain every route runs, built from its route-table entry:
 *   error mapping (registered first: its onError sees every error)
 *   → authentication (API key + scope, or signed-in user + role), before the body is read
 *   → JSON body + zod schema (routes with a body)
 *   → the route's handler: typed, validated input in; a response out.
 */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import type { z } from "zod";
import type { Principal } from "../domain/principal.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import { type RouteId, routeById } from "../routes.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { httpErrorMapper } from "./error-mapper.js";
import { jsonBody } from "./json-body.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";
import { userAuth } from "./user-auth.js";

export interface RouteRequest<TCaller, TBody> {
  readonly caller: TCaller;
  readonly body: TBody;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
}

export interface BodyOptions<TSchema extends z.ZodType> {
  readonly body: TSchema;
  /** Whether an empty body is accepted (validated as `{}`). */
  readonly bodyOptional?: boolean;
}

type Handler<TCaller, TBody> = (request: RouteRequest<TCaller, TBody>) => Promise<HttpResult>;

function chain(routeId: RouteId, bodyOptions: BodyOptions<z.ZodType> | undefined) {
  const route = routeById(routeId);
  const authentication = route.auth.kind === "apiKey" ? apiKeyAuth(route.auth) : userAuth(route.auth);
  const handler = middy<SdkEvent, HttpResult, Error, Context>().use(httpErrorMapper()).use(authentication);
  return bodyOptions === undefined
    ? handler
    : handler.use(jsonBody(bodyOptions.body, { optional: bodyOptions.bodyOptional ?? false }));
}

function requireKind(routeId: RouteId, kind: "apiKey" | "user"): void {
  if (routeById(routeId).auth.kind !== kind) throw new Error(`Route ${routeId} is not an ${kind} route`);
}

/** A route called by SDK clients with an API key. */
export function apiKeyRoute<TSchema extends z.ZodType>(
  routeId: RouteId,
  options: BodyOptions<TSchema>,
  routeHandler: Handler<Principal, z.output<TSchema>>,
) {
  requireKind(routeId, "apiKey");
  return chain(routeId, options).handler(async function runApiKeyRoute(event) {
    if (event.principal === undefined) throw new Error("apiKeyAuth did not run before the handler");
    return routeHandler({
      caller: event.principal,
      // Set by jsonBody from `options.body`, the schema that types it.
      body: event.input as z.output<TSchema>,
      pathParameters: event.pathParameters ?? {},
    });
  });
}

/** A route called by signed-in users (key management); `options.body` only for routes with a body. */
export function userRoute<TSchema extends z.ZodType>(
  routeId: RouteId,
  options: Partial<BodyOptions<TSchema>>,
  routeHandler: Handler<UserPrincipal, z.output<TSchema>>,
) {
  requireKind(routeId, "user");
  const bodyOptions =
    options.body === undefined ? undefined : { body: options.body, bodyOptional: options.bodyOptional };
  return chain(routeId, bodyOptions as BodyOptions<z.ZodType> | undefined).handler(async function runUserRoute(event) {
    if (event.user === undefined) throw new Error("userAuth did not run before the handler");
    return routeHandler({
      caller: event.user,
      body: event.input as z.output<TSchema>,
      pathParameters: event.pathParameters ?? {},
    });
  });
}
