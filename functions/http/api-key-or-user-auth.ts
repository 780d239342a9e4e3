/**
 * The one place that decides who calls an `apiKeyOrUser` route (the console's
 * reads): a credential starting with `ats_` is an API key, checked
 * exactly as on the SDK routes (api-key-auth.ts: lookup, scope); anything else
 * is a signed-in user's access token with `X-Organization-Id` and
 * `X-Environment` (auth/tenant-user-authenticator.ts). Either way the request
 * goes on with the same Principal shape, so rate limiting, tenancy checks,
 * cursors and handlers cannot tell them apart.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { holdsApiKey, isBearer } from "../auth/bearer-token.js";
import { authenticateTenantUser } from "../auth/tenant-user-authenticator.js";
import { UnauthorizedError } from "../domain/errors.js";
import type { Role } from "../domain/membership.js";
import type { Scope } from "../domain/scopes.js";
import { apiKeyAuth } from "./api-key-auth.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

const MISSING =
  "Missing credential: send Authorization: Bearer <API key>, or Bearer <access token> with X-Organization-Id";
const NOT_BEARER =
  "Invalid Authorization header: send Authorization: Bearer <API key>, or Bearer <access token> with X-Organization-Id";

const FEEDBACK_TOKEN_REFUSED =
  "A feedback token (atsf_…) only posts an end user's score (POST /api/public/feedback); send an API key or an access token";

export function apiKeyOrUserAuth(options: {
  readonly scope: Scope;
  readonly role: Role;
}): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  const { scope, role } = options;
  const keyAuth = apiKeyAuth({ scope });
  async function apiKeyOrUserAuthBefore(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const headers = request.event.headers ?? {};
    const authorization = headers.authorization;
    if (authorization === undefined || authorization.trim() === "") throw new UnauthorizedError(MISSING);
    // An API key, sent as `Bearer ats_…` or not (bare, `Basic ats_…`: the key check then says how to send one).
    if (holdsApiKey(authorization)) {
      await keyAuth.before?.(request);
      return;
    }
    if (!isBearer(authorization)) throw new UnauthorizedError(NOT_BEARER);
    if (/^Bearer +atsf_/i.test(authorization.trim())) throw new UnauthorizedError(FEEDBACK_TOKEN_REFUSED);
    request.event.principal = await authenticateTenantUser(
      { authorization, organisation: headers["x-organization-id"], environment: headers["x-environment"] },
      { scope, role },
    );
  }
  return { before: apiKeyOrUserAuthBefore };
}
