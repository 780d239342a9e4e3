/**
 * Turns an `Authorization: Bearer atsf_…` header into the claims of a valid feedback token, or a 401 that says
 * what is wrong (missing, not a feedback token — an API key is refused here —, tampered or of another
 * deployment, expired). Reads nothing but the deployment's secret (once per container).
 */
import { UnauthorizedError } from "../domain/errors.js";
import { type FeedbackTokenClaims, looksLikeFeedbackToken, verifyFeedbackToken } from "../domain/feedback-token.js";
import { bearerToken } from "./bearer-token.js";
import { feedbackTokenKey } from "./feedback-token-key.js";

const MESSAGES = {
  missing: "Missing feedback token: send the header Authorization: Bearer <feedback token> (atsf_…)",
  notBearer: "Invalid feedback token header: send Authorization: Bearer <feedback token> (atsf_…)",
  invalid: "Invalid feedback token: it is malformed, altered or not from this deployment",
} as const;

const EXPIRED = "Feedback token expired: ask the application for a new one";
const NOT_A_FEEDBACK_TOKEN =
  "This route takes a feedback token (atsf_…), minted by POST /api/sdk/feedback-tokens; API keys and access tokens are refused here";

export async function authenticateFeedbackToken(
  authorization: string | undefined,
  nowMs: number,
): Promise<FeedbackTokenClaims> {
  const token = bearerToken(authorization, MESSAGES);
  if (!looksLikeFeedbackToken(token)) throw new UnauthorizedError(NOT_A_FEEDBACK_TOKEN);
  const check = verifyFeedbackToken(token, await feedbackTokenKey(), nowMs);
  if (check.ok) return check.claims;
  throw new UnauthorizedError(check.problem === "expired" ? EXPIRED : MESSAGES.invalid);
}
