/**
 * Signed-in user authentication (key-management routes): a verified access
 * token, a membership of the organisation, and at least the route's role.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { authenticateUser } from "../auth/user-authenticator.js";
import { ForbiddenError } from "../domain/errors.js";
import { hasRole, type Role, roleRequirement } from "../domain/membership.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export function userAuth(options: { readonly role: Role }): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  const { role } = options;
  async function userAuthBefore(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const headers = request.event.headers ?? {};
    const user = await authenticateUser(headers.authorization, headers["x-organization-id"]);
    if (!hasRole(user.role, role)) {
      throw new ForbiddenError(
        `Your role in organisation ${user.orgId} is ${user.role}; this action needs ${roleRequirement(role)}`,
      );
    }
    request.event.user = user;
  }
  return { before: userAuthBefore };
}
