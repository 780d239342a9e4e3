import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { SignedInUser } from "../auth/user-authenticator.js";
import type { FeedbackTokenClaims } from "../domain/feedback-token.js";
import type { Principal } from "../domain/principal.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import type { RateLimitDecision } from "../ratelimit/rate-limiter.js";

/**
 * The API Gateway (HTTP API, payload v2) event as it moves through the
 * middleware chain: authentication adds `principal` (API key, or access
 * token acting for a tenant), `user` (access token, for an organisation) or
 * `signedIn` (access token, no organisation), body and query validation add `input` and `query`.
 */
export interface SdkEvent extends APIGatewayProxyEventV2 {
  principal?: Principal;
  user?: UserPrincipal;
  signedIn?: SignedInUser;
  /** A feedback token's claims (the feedback route): its session, event and names. */
  feedbackToken?: FeedbackTokenClaims;
  input?: unknown;
  /** The body as the client meant it (decompressed), once the body middleware read it. */
  decodedBody?: Buffer;
  query?: unknown;
  /** Number of events the request stored, set by ingesting handlers (read by the request metrics). */
  ingestedEvents?: number;
  /** Set when the request claimed an Idempotency-Key: the id it must create (ULID part). */
  idempotency?: { readonly key: string; readonly plannedUlid: string };
  /** The rate-limit decision of an API-key request (its headers go on the response). */
  rateLimit?: RateLimitDecision;
}

export type HttpResult = APIGatewayProxyStructuredResultV2;
