/**
 * CORS for the one route a browser calls across origins (`POST /api/public/feedback`, with a feedback token):
 * any origin, no credentials (the token is a bearer header, never a cookie), the headers and methods that route
 * takes. Every other route sends no CORS header: the console is served from the API's own origin.
 */
import type { Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

/** The headers on every answer of the feedback route, errors included (a browser reads a 401 only with them). */
export const FEEDBACK_CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after",
} as const;

/** What a preflight (`OPTIONS`) of the feedback route is answered with. */
export const FEEDBACK_PREFLIGHT_HEADERS = {
  ...FEEDBACK_CORS_HEADERS,
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "600",
} as const;

/** End-of-request hook: the CORS headers onto the final response, whatever it is. */
export function attachFeedbackCors(request: Request<SdkEvent, HttpResult, Error, Context>): void {
  const response = request.response;
  if (response == null) return;
  // The very object middy returns: the hook runs after the response was settled, so it is amended in place.
  response.headers = { ...response.headers, ...FEEDBACK_CORS_HEADERS };
}
