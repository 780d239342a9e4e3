/**
 * Bearer API-key authentication and scope check (SDK routes). Runs before
 * the body is read, so an unauthenticated caller learns nothing about
 * validation.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { authenticateApiKey } from "../auth/api-key-authenticator.js";
import { ForbiddenError } from "../domain/errors.js";
import type { Scope } from "../domain/scopes.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export function apiKeyAuth(options: {
  readonly scope: Scope;
  /** Also take the key as the password of Basic credentials (the Langfuse trace path only). */
  readonly basic?: boolean;
}): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  const { scope } = options;
  const schemes = { basic: options.basic === true };
  async function apiKeyAuthBefore(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const principal = await authenticateApiKey(request.event.headers?.authorization, Date.now(), schemes);
    if (!principal.scopes.includes(scope)) {
      throw new ForbiddenError(`This API key has no access to this resource: it lacks the "${scope}" scope`);
    }
    request.event.principal = principal;
  }
  return { before: apiKeyAuthBefore };
}
