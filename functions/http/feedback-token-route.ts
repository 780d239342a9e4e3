/**
 * The route a browser calls with an end user's feedback token (`feedbackToken`): the token verified (no API key,
 * no access token), then the rate limit — the token's own small budget and its organisation's —, the JSON body,
 * and the CORS headers and `Cache-Control: no-store` on every answer.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type * as z from "zod/mini";
import { authenticateFeedbackToken } from "../auth/feedback-token-authenticator.js";
import type { FeedbackTokenClaims } from "../domain/feedback-token.js";
import { LIMITS } from "../domain/limits.js";
import type { Principal } from "../domain/principal.js";
import type { RouteId } from "../route-table.js";
import { DEFAULT_ROLLUP_RETENTION_DAYS } from "../store/table/retention.js";
import { attachFeedbackCors } from "./cors.js";
import { attachNoStore } from "./no-store.js";
import { attachRateLimitHeaders, rateLimit } from "./rate-limit.js";
import { type RouteHandler, type RouteOptions, routeChain, validated } from "./route-chain.js";
import { routeOfKind } from "./route-of-kind.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

/** Who posts: the token's claims, and the principal its writes are made as (its tenant; author: the token). */
export interface FeedbackCaller {
  readonly claims: FeedbackTokenClaims;
  readonly principal: Principal;
}

/** The principal of a token: its tenant, no scope, a rate-limit budget of its own below its organisation's. */
export function feedbackPrincipal(claims: FeedbackTokenClaims): Principal {
  return {
    keyId: claims.tokenId,
    orgId: claims.orgId,
    environment: claims.environment,
    scopes: [],
    retentionDays: claims.retentionDays,
    rollupRetentionDays: DEFAULT_ROLLUP_RETENTION_DAYS,
    keyRateLimitPerMinute: LIMITS.feedbackTokenPostsPerMinute,
    feedbackTokenId: claims.tokenId,
  };
}

function feedbackTokenAuth(): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  async function feedbackTokenAuthBefore(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const claims = await authenticateFeedbackToken(request.event.headers?.authorization, Date.now());
    request.event.feedbackToken = claims;
    request.event.principal = feedbackPrincipal(claims);
  }
  return { before: feedbackTokenAuthBefore };
}

export function feedbackTokenRoute<TBody extends z.ZodMiniType>(
  routeId: RouteId,
  options: RouteOptions<TBody, z.ZodMiniUnknown>,
  routeHandler: RouteHandler<FeedbackCaller, z.output<TBody>, unknown>,
) {
  routeOfKind(routeId, "feedbackToken");
  return routeChain(
    options,
    [feedbackTokenAuth(), rateLimit()],
    [],
    [attachRateLimitHeaders, attachNoStore, attachFeedbackCors],
  ).handler(async function runFeedbackTokenRoute(event) {
    const claims = event.feedbackToken;
    if (event.principal === undefined || claims === undefined) {
      throw new Error("authentication did not run before the handler");
    }
    return routeHandler({
      caller: { claims, principal: event.principal },
      ...validated<TBody, z.ZodMiniUnknown>(event),
    });
  });
}
