/**
 * POST /api/public/feedback (from a browser, with a feedback token): an end user's score on the token's session
 * (and event) → 201. Source `end_user`, author the token; score configurations apply as to every score.
 */

import { ForbiddenError } from "../domain/errors.js";
import { allowsScoreName } from "../domain/feedback-token.js";
import { plannedScoreId } from "../domain/score.js";
import { feedbackTokenRoute } from "../http/feedback-token-route.js";
import { jsonResponse } from "../http/responses.js";
import { postFeedbackBody } from "../schemas/feedback-schemas.js";
import { scoreView } from "../scores/score-view.js";
import { recordScore } from "../store/scores/score-store.js";

export const handler = feedbackTokenRoute("PostFeedback", { body: postFeedbackBody }, async ({ caller, body }) => {
  const { claims, principal } = caller;
  if (!allowsScoreName(claims, body.name)) {
    throw new ForbiddenError(`This feedback token may not write a score named "${body.name}"`);
  }
  const nowMs = Date.now();
  const score = { ...body, sessionId: claims.sessionId, eventId: claims.eventId, source: "end_user" as const };
  const recorded = await recordScore(principal, score, plannedScoreId(undefined, 0, nowMs), nowMs);
  return jsonResponse(201, scoreView(recorded.score));
});
