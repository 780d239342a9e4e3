/**
 * OPTIONS /api/public/feedback: the CORS preflight of the feedback route → 204 with what a browser may send
 * (POST; `Authorization`, `Content-Type`; from any origin, no credentials). No credential, no table.
 */
import { FEEDBACK_PREFLIGHT_HEADERS } from "../http/cors.js";
import { publicRoute } from "../http/public-route.js";

export const handler = publicRoute("FeedbackPreflight", async () => ({
  statusCode: 204,
  headers: { ...FEEDBACK_PREFLIGHT_HEADERS },
  body: "",
}));
