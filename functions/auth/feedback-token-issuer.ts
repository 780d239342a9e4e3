/**
 * Mints an end user's feedback token (POST /api/sdk/feedback-tokens): the session (and event) checked to be the
 * key's tenant's, then the claims signed. Nothing is written: the token carries all it allows.
 */
import { type FeedbackTokenClaims, signFeedbackToken } from "../domain/feedback-token.js";
import { newId } from "../domain/ids.js";
import { LIMITS } from "../domain/limits.js";
import type { Principal } from "../domain/principal.js";
import { assertScoreTarget } from "../store/scores/score-store.js";
import { feedbackTokenKey } from "./feedback-token-key.js";

export interface FeedbackTokenRequest {
  readonly sessionId: string;
  readonly eventId?: string | undefined;
  readonly expiresInSeconds?: number | undefined;
  readonly names?: readonly string[] | undefined;
}

export interface IssuedFeedbackToken {
  readonly token: string;
  readonly tokenId: string;
  readonly expiresAt: string;
}

export async function issueFeedbackToken(
  principal: Principal,
  request: FeedbackTokenRequest,
  nowMs = Date.now(),
): Promise<IssuedFeedbackToken> {
  const [, key] = await Promise.all([
    assertScoreTarget(principal, request.sessionId, request.eventId, nowMs),
    feedbackTokenKey(),
  ]);
  const lifetime = request.expiresInSeconds ?? LIMITS.feedbackTokenDefaultSeconds;
  const expiresAt = Math.floor(nowMs / 1000) + lifetime;
  const names = request.names === undefined ? undefined : [...new Set(request.names)];
  const claims: FeedbackTokenClaims = {
    tokenId: newId("feedbackToken", nowMs),
    orgId: principal.orgId,
    environment: principal.environment,
    sessionId: request.sessionId,
    ...(request.eventId === undefined ? {} : { eventId: request.eventId }),
    ...(names === undefined ? {} : { names }),
    expiresAt,
    retentionDays: principal.retentionDays,
  };
  return {
    token: signFeedbackToken(claims, key),
    tokenId: claims.tokenId,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
  };
}
