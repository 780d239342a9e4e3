/**
 * The Lambda authorizer (HTTP API, REQUEST, simple responses) on every route
 * when edge protection is on: authorised when the request carries the origin
 * secret that CloudFront adds (origin-verify.ts). Its identity source is that
 * header, so API Gateway refuses a request without it before invoking this
 * function, and caches each answer for a few minutes per header value.
 *
 * This says only that the request came through the distribution; who the
 * caller is, is still decided by the route's own function (API key or user
 * token).
 */
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerResult } from "aws-lambda";
import { requireEnv } from "../runtime/env.js";
import { ORIGIN_VERIFY_HEADER, originSecretMatches } from "./origin-verify.js";

/** The secret made at deployment (Custom::OriginSecret). */
const originSecret = requireEnv("ORIGIN_SECRET");

export async function handler(event: APIGatewayRequestAuthorizerEventV2): Promise<APIGatewaySimpleAuthorizerResult> {
  return { isAuthorized: originSecretMatches(event.headers?.[ORIGIN_VERIFY_HEADER], originSecret) };
}
