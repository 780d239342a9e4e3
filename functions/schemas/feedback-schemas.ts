/** Request schemas of end-user feedback (issue 33): minting a feedback token, and posting a score with one. */
import * as z from "zod/mini";
import { feedbackTokenNamesFit } from "../domain/feedback-token.js";
import { LIMITS } from "../domain/limits.js";
import { boundedNumber, name, optional, strictObject, text } from "./fields.js";
import { scoreValue } from "./score-schemas.js";

/** POST /api/sdk/feedback-tokens: the session (and event) the token is bound to, its lifetime, its score names. */
export const createFeedbackTokenBody = strictObject({
  sessionId: name(),
  eventId: optional(name()),
  /** Seconds until the token expires (default LIMITS.feedbackTokenDefaultSeconds). */
  expiresInSeconds: optional(boundedNumber(1, LIMITS.feedbackTokenMaxSeconds, { integer: true })),
  /** The score names the token may write; absent: any name. */
  names: optional(
    z.array(text(LIMITS.scoreNameLength), { error: "Must be an array of score names" }).check(
      z.minLength(1, { error: "Must hold at least one name (leave names out to allow any)" }),
      z.maxLength(LIMITS.feedbackTokenNames, { error: `Must hold at most ${LIMITS.feedbackTokenNames} names` }),
      z.refine(feedbackTokenNamesFit, {
        error: `Must be at most ${LIMITS.feedbackTokenNamesBytes} bytes together (as a JSON array in UTF-8)`,
      }),
    ),
  ),
});
export type CreateFeedbackTokenBody = z.output<typeof createFeedbackTokenBody>;

/**
 * POST /api/public/feedback: one score. The session and event are the token's, never the body's (a `sessionId`
 * here is an unknown field: 400); the source is `end_user` and the author the token.
 */
export const postFeedbackBody = strictObject({
  name: text(LIMITS.scoreNameLength),
  value: scoreValue,
  comment: optional(text(LIMITS.scoreCommentLength)),
});
export type PostFeedbackBody = z.output<typeof postFeedbackBody>;
