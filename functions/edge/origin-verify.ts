/**
 * With edge protection on, the HTTP API answers only requests that came
 * through the CloudFront distribution (and so through its AWS WAF rules):
 * CloudFront adds {@link ORIGIN_VERIFY_HEADER} with a secret made at
 * deployment to every request it forwards to `/api/*`, and a Lambda
 * authorizer on every route compares it (origin-verify-authorizer.ts). A
 * request to the execute-api URL without the header is refused by API Gateway
 * itself (401, no invocation); one with a wrong value by the authorizer (403).
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** The header CloudFront adds to the requests it forwards to the API (lowercase, as API Gateway passes headers). */
export const ORIGIN_VERIFY_HEADER = "x-ats-origin-verify";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/**
 * Whether the presented header value is the secret, in time independent of
 * where they differ (both are hashed first, so lengths do not leak either).
 */
export function originSecretMatches(presented: string | undefined, secret: string): boolean {
  if (presented === undefined || secret === "") return false;
  return timingSafeEqual(digest(presented), digest(secret));
}
