/**
 * The one middy chain every route runs, built from its route-table entry:
 *   request log line and metrics (first: sees the whole request and the final response)
 *   → error mapping (its onError sees every error)
 *   → the route kind's own checks, before anything else is read (api-key-route.ts, api-key-or-user-route.ts —
 *     the console's reads —, user-route.ts — also signedIn —, feedback-token-route.ts — end users' feedback from
 *     browsers, with CORS —, public-route.ts; each module imports only what its
 *     kind needs, so a function's bundle carries only its own authentication code)
 *   → query string + zod schema, JSON body + zod schema (routes that take them)
 *   → the route kind's checks after validation (Idempotency-Key on the SDK's POST/PATCH)
 *   → the route's handler: typed, validated input in; a response out.
 */
import middy, { type MiddlewareObj, type Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type * as z from "zod/mini";
import { UnavailableError } from "../domain/errors.js";
import { requestObservability } from "../observability/request-logging.js";
import { httpErrorMapper } from "./error-mapper.js";
import { jsonBody, rawBodyReader } from "./json-body.js";
import { queryParameters } from "./query-parameters.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

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
  /** The body's bytes (decompressed) on routes that read it raw (`rawBody` option); else empty. */
  readonly rawBody: Buffer;
  /** The request's `Content-Type` header. */
  readonly contentType: string | undefined;
  /** The request's `Accept-Encoding` header (routes that may answer compressed). */
  readonly acceptEncoding: string | undefined;
  /** Reports how many events the request stored (the IngestedEvents metric). */
  readonly recordIngested: (count: number) => void;
}

export interface RouteOptions<TBody extends z.ZodMiniType, TQuery extends z.ZodMiniType> {
  /** Schema of the JSON body, for routes that take one. */
  readonly body?: TBody;
  /** Whether an empty body is accepted (validated as `{}`). */
  readonly bodyOptional?: boolean;
  /** Body size limit, when not the default (LIMITS.bodyBytes). */
  readonly maxBodyBytes?: number;
  /** Schema of the query string parameters, for routes that take them. */
  readonly query?: TQuery;
  /** A body the handler decodes itself (not JSON): read, decompressed and size-checked, up to `maxBytes`. */
  readonly rawBody?: { readonly maxBytes: number };
  /**
   * Answer a request about to run past the function's timeout with 503 and this `Retry-After` (seconds),
   * instead of middy's 500: for routes whose clients retry a 503 and drop a 500 (OTLP exporters), and whose
   * retry stores nothing twice.
   */
  readonly timeoutRetryAfterSeconds?: number;
}

/** Time kept before the function's timeout to answer a request that has not finished (the 503 above). */
const TIMEOUT_MARGIN_MS = 500;

export type RouteHandler<TCaller, TBody, TQuery> = (
  request: RouteRequest<TCaller, TBody, TQuery>,
) => Promise<HttpResult>;

export type ChainMiddleware = MiddlewareObj<SdkEvent, HttpResult, Error, Context>;

/** A step run at the very end of every request, on the final response (success, error or early answer). */
export type ResponseFinisher = (request: Request<SdkEvent, HttpResult, Error, Context>) => void;

export function routeChain(
  options: RouteOptions<z.ZodMiniType, z.ZodMiniType>,
  beforeInput: readonly ChainMiddleware[],
  afterInput: readonly ChainMiddleware[] = [],
  finishers: readonly ResponseFinisher[] = [],
) {
  // Observability first: its `before` starts the clock, its `after`/`onError` run last and see the final
  // response; `requestEnd` also reports requests answered early (idempotent replays). The route kind's
  // finishers (e.g. rate-limit headers) run in the same end-of-request hook, on every response.
  const observability = requestObservability();
  function finishRequest(request: Request): void {
    // middy types plugin hooks loosely; the request is this chain's own.
    for (const finish of finishers) finish(request as Request<SdkEvent, HttpResult, Error, Context>);
    observability.requestEnd(request);
  }
  const retryAfter = options.timeoutRetryAfterSeconds;
  const timeout =
    retryAfter === undefined
      ? {}
      : {
          timeoutEarlyInMillis: TIMEOUT_MARGIN_MS,
          timeoutEarlyResponse: (): never => {
            throw new UnavailableError(
              "The request did not finish in time; retry after the Retry-After delay",
              retryAfter,
            );
          },
        };
  let handler = middy<SdkEvent, HttpResult, Error, Context>({ requestEnd: finishRequest, ...timeout })
    .use(observability)
    .use(httpErrorMapper());
  for (const middleware of beforeInput) handler = handler.use(middleware);
  if (options.query !== undefined) handler = handler.use(queryParameters(options.query));
  if (options.body !== undefined) {
    handler = handler.use(
      jsonBody(options.body, {
        optional: options.bodyOptional ?? false,
        ...(options.maxBodyBytes === undefined ? {} : { maxBytes: options.maxBodyBytes }),
      }),
    );
  }
  if (options.rawBody !== undefined) handler = handler.use(rawBodyReader(options.rawBody.maxBytes));
  for (const middleware of afterInput) handler = handler.use(middleware);
  return handler;
}

/** Typed views of what the middlewares attached (set from the very schemas that type them). */
export function validated<TBody extends z.ZodMiniType, TQuery extends z.ZodMiniType>(event: SdkEvent) {
  return {
    body: event.input as z.output<TBody>,
    query: event.query as z.output<TQuery>,
    pathParameters: event.pathParameters ?? {},
    plannedUlid: event.idempotency?.plannedUlid,
    rawBody: event.decodedBody ?? Buffer.alloc(0),
    contentType: event.headers?.["content-type"],
    acceptEncoding: event.headers?.["accept-encoding"],
    recordIngested: (count: number) => {
      event.ingestedEvents = count;
    },
  };
}
