/**
 * Bearer API-key authentication and scope check. Runs before the body is
 * read, so an unauthenticated caller learns nothing about validation.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { authenticate } from "../auth/api-key-authenticator.js";
import { ForbiddenError } from "../domain/errors.js";
import type { Scope } from "../domain/scopes.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export interface ApiKeyAuthOptions {
  /** Scope the key must hold for this route. */
  readonly scope: Scope;
}

export function apiKeyAuth(options: ApiKeyAuthOptions): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  const { scope } = options;
  async function apiKeyAuthBefore(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const principal = await authenticate(request.event.headers?.authorization);
    if (!principal.scopes.includes(scope)) {
      throw new ForbiddenError(`This API key has no access to this resource: it lacks the "${scope}" scope`);
    }
    request.event.principal = principal;
  }
  return { before: apiKeyAuthBefore };
}
