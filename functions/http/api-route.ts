/**
 * The one middy chain every route runs, built from its route-table entry:
 *   request log line and metrics (first: sees the whole request and the final response)
 *   → error mapping (its onError sees every error)
 *   → authentication (API key + scope, or signed-in user + role), before anything else is read
 *   → the API key's rate limit (429 + Retry-After; RateLimit-* headers on every answer)
 *   → query string + zod schema, JSON body + zod schema (routes that take them)
 *   → Idempotency-Key (the SDK's POST and PATCH routes)
 *   → the route's handler: typed, validated input in; a response out.
 */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import type { z } from "zod";
import type { Principal } from "../domain/principal.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import { requestObservability } from "../observability/request-logging.js";
import { type RouteAuth, type RouteId, routeById } from "../routes.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { httpErrorMapper } from "./error-mapper.js";
import { idempotency } from "./idempotency.js";
import { jsonBody } from "./json-body.js";
import { queryParameters } from "./query-parameters.js";
import { rateLimit } from "./rate-limit.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";
import { userAuth } from "./user-auth.js";

export interface RouteRequest<TCaller, TBody, TQuery> {
  readonly caller: TCaller;
  /**
   * With an Idempotency-Key: the ULID the request must use for what it creates,
   * the same on every retry of the request.
   */
  readonly plannedUlid?: string | undefined;
  readonly body: TBody;
  readonly query: TQuery;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
  /** Reports how many events the request stored (the IngestedEvents metric). */
  readonly recordIngested: (count: number) => void;
}

export interface RouteOptions<TBody extends z.ZodType, TQuery extends z.ZodType> {
  /** Schema of the JSON body, for routes that take one. */
  readonly body?: TBody;
  /** Whether an empty body is accepted (validated as `{}`). */
  readonly bodyOptional?: boolean;
  /** Body size limit, when not the default (LIMITS.bodyBytes). */
  readonly maxBodyBytes?: number;
  /** Schema of the query string parameters, for routes that take them. */
  readonly query?: TQuery;
}

type Handler<TCaller, TBody, TQuery> = (request: RouteRequest<TCaller, TBody, TQuery>) => Promise<HttpResult>;

function chain(routeId: RouteId, options: RouteOptions<z.ZodType, z.ZodType>) {
  const route = routeById(routeId);
  const { auth } = route;
  // Observability first: its `before` starts the clock, its `after`/`onError` run last and see the final
  // response; `requestEnd` also reports requests answered early (idempotent replays).
  const observability = requestObservability();
  let handler = middy<SdkEvent, HttpResult, Error, Context>({ requestEnd: observability.requestEnd })
    .use(observability)
    .use(httpErrorMapper());
  if (auth.kind === "apiKey") handler = handler.use(apiKeyAuth(auth)).use(rateLimit());
  if (auth.kind === "user") handler = handler.use(userAuth(auth));
  if (options.query !== undefined) handler = handler.use(queryParameters(options.query));
  if (options.body !== undefined) {
    handler = handler.use(
      jsonBody(options.body, {
        optional: options.bodyOptional ?? false,
        ...(options.maxBodyBytes === undefined ? {} : { maxBytes: options.maxBodyBytes }),
      }),
    );
  }
  if (auth.kind === "apiKey" && (route.method === "POST" || route.method === "PATCH"))
    handler = handler.use(idempotency());
  return handler;
}

function requireKind(routeId: RouteId, kind: RouteAuth["kind"]): void {
  if (routeById(routeId).auth.kind !== kind) throw new Error(`Route ${routeId} is not an ${kind} route`);
}

/** Typed views of what the middlewares attached (set from the very schemas that type them). */
function validated<TBody extends z.ZodType, TQuery extends z.ZodType>(event: SdkEvent) {
  return {
    body: event.input as z.output<TBody>,
    query: event.query as z.output<TQuery>,
    pathParameters: event.pathParameters ?? {},
    plannedUlid: event.idempotency?.plannedUlid,
    recordIngested: (count: number) => {
      event.ingestedEvents = count;
    },
  };
}

/** A route called by SDK clients with an API key. */
export function apiKeyRoute<TBody extends z.ZodType = z.ZodUnknown, TQuery extends z.ZodType = z.ZodUnknown>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: Handler<Principal, z.output<TBody>, z.output<TQuery>>,
) {
  requireKind(routeId, "apiKey");
  return chain(routeId, options).handler(async function runApiKeyRoute(event) {
    if (event.principal === undefined) throw new Error("apiKeyAuth did not run before the handler");
    return routeHandler({ caller: event.principal, ...validated<TBody, TQuery>(event) });
  });
}

/** A route called by signed-in users (key management). */
export function userRoute<TBody extends z.ZodType = z.ZodUnknown, TQuery extends z.ZodType = z.ZodUnknown>(
  routeId: RouteId,
  options: RouteOptions<TBody, TQuery>,
  routeHandler: Handler<UserPrincipal, z.output<TBody>, z.output<TQuery>>,
) {
  requireKind(routeId, "user");
  return chain(routeId, options).handler(async function runUserRoute(event) {
    if (event.user === undefined) throw new Error("userAuth did not run before the handler");
    return routeHandler({ caller: event.user, ...validated<TBody, TQuery>(event) });
  });
}

/** A route anyone may call (the API description). */
export function publicRoute(routeId: RouteId, routeHandler: () => Promise<HttpResult>) {
  requireKind(routeId, "public");
  return chain(routeId, {}).handler(async function runPublicRoute() {
    return routeHandler();
  });
}
