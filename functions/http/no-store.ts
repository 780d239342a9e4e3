/**
 * `Cache-Control: no-store` on every answer of a route that takes a credential (issue 30): what such a route
 * answers is a tenant's or a user's own data (sessions, events, figures, keys, members, invitations,
 * deletion jobs and their audit), and no cache — a browser's, a proxy's — may keep it. Errors included: a
 * 401, 403 or 404 says something about what exists, and it is never worth keeping. Each authenticated route
 * kind runs this at the very end of every request (api-key-chain.ts, user-route.ts), so a handler cannot
 * forget it; the public route (the API description) does not.
 */
import type { Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export const NO_STORE = "no-store";

/** End-of-request hook: `Cache-Control: no-store` onto the final response, whatever it is. */
export function attachNoStore(request: Request<SdkEvent, HttpResult, Error, Context>): void {
  const response = request.response;
  if (response == null) return;
  // The very object middy returns: the hook runs after the response was settled, so it is amended in place.
  response.headers = { ...response.headers, "cache-control": NO_STORE };
}
