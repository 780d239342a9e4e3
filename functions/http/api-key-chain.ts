/**
 * The chain every route with a tenant's principal shares, whoever authenticates it: the route's
 * authentication, the rate limit, the checks after validation (Idempotency-Key on the SDK's writes),
 * the `RateLimit-*` headers and `Cache-Control: no-store` (no-store.ts) at the end. Each route kind's module picks its authentication and its checks
 * (api-key-route.ts, api-key-or-user-route.ts, api-key-export-route.ts), so a function bundles only its
 * own: an SDK write never carries the access-token verifier, an OTLP export no Idempotency-Key records.
 */
import type { MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import type * as z from "zod/mini";
import type { Principal } from "../domain/principal.js";
import { attachNoStore } from "./no-store.js";
import { attachRateLimitHeaders, rateLimit } from "./rate-limit.js";
import { type RouteHandler, type RouteOptions, routeChain, validated } from "./route-chain.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export function apiKeyChain<TBody extends z.ZodMiniType, TQuery extends z.ZodMiniType>(
  authentication: MiddlewareObj<SdkEvent, HttpResult, Error, Context>,
  afterInput: readonly MiddlewareObj<SdkEvent, HttpResult, Error, Context>[],
  options: RouteOptions<TBody, TQuery>,
  routeHandler: RouteHandler<Principal, z.output<TBody>, z.output<TQuery>>,
) {
  return routeChain(options, [authentication, rateLimit()], afterInput, [
    attachRateLimitHeaders,
    attachNoStore,
  ]).handler(async function runApiKeyRoute(event) {
    if (event.principal === undefined) throw new Error("authentication did not run before the handler");
    return routeHandler({ caller: event.principal, ...validated<TBody, TQuery>(event) });
  });
}
