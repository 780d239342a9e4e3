/**
 * POST /api/sdk/feedback-tokens: a short-lived token an end user's browser may post one kind of thing with — a
 * score on this session (and event) — and nothing else → 201 `{ token, tokenId, expiresAt }`. Writes nothing.
 */
import { issueFeedbackToken } from "../auth/feedback-token-issuer.js";
import { apiKeyRoute } from "../http/api-key-route.js";
import { jsonResponse } from "../http/responses.js";
import { createFeedbackTokenBody } from "../schemas/feedback-schemas.js";

export const handler = apiKeyRoute("CreateFeedbackToken", { body: createFeedbackTokenBody }, async ({ caller, body }) =>
  jsonResponse(201, await issueFeedbackToken(caller, body)),
);
