/**
 * Turns a signed-in user's access token into a UserPrincipal: verify the JWT,
 * then resolve the organisation the request acts for from the user's
 * memberships (the `X-Organization-Id` header chooses one when the user
 * belongs to several).
 */
import { parseApiKey } from "../domain/api-key.js";
import { ForbiddenError, UnauthorizedError, ValidationError } from "../domain/errors.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import { listUserMemberships } from "../store/members/membership-store.js";
import { bearerToken, holdsApiKey } from "./bearer-token.js";
import { verifyUserToken } from "./user-token-verifier.js";

const MISSING = "Missing access token: sign in and send Authorization: Bearer <access token>";
const INVALID = "Invalid access token: the token is malformed, expired or not issued for this service";
const API_KEY_HERE = "API keys are not accepted here: sign in and send your access token";
const NOT_BEARER = "Invalid Authorization header: sign in and send Authorization: Bearer <access token>";

async function verifiedClaims(token: string): Promise<{ userId: string; username: string }> {
  try {
    const payload = await verifyUserToken(token);
    const username = payload.username ?? payload["cognito:username"] ?? payload.email ?? payload.sub;
    if (typeof payload.sub !== "string" || payload.sub === "") throw new Error("no subject");
    return { userId: payload.sub, username: String(username) };
  } catch (error) {
    throw new UnauthorizedError(INVALID, { cause: error });
  }
}

/** A signed-in user, verified from the access token alone (no organisation yet). */
export interface SignedInUser {
  readonly userId: string;
  readonly username: string;
}

/** The user of a verified access token; 401 for a missing, invalid or expired token, or an API key. */
export async function authenticateSignedInUser(authorization: string | undefined): Promise<SignedInUser> {
  // An API key sent without `Bearer ` is still an API key: say that keys are not accepted here.
  const notBearer = holdsApiKey(authorization) ? API_KEY_HERE : NOT_BEARER;
  const token = bearerToken(authorization, { missing: MISSING, notBearer, invalid: INVALID });
  if (token.startsWith("ats_") || parseApiKey(token) !== undefined) throw new UnauthorizedError(API_KEY_HERE);
  return verifiedClaims(token);
}

export async function authenticateUser(
  authorization: string | undefined,
  requestedOrganisation: string | undefined,
): Promise<UserPrincipal> {
  return userInOrganisation(await authenticateSignedInUser(authorization), requestedOrganisation);
}

/** The organisation a verified user acts for (see the module comment), with their role in it. */
export async function userInOrganisation(
  user: SignedInUser,
  requestedOrganisation: string | undefined,
): Promise<UserPrincipal> {
  const { userId, username } = user;
  const memberships = await listUserMemberships(userId);

  const chosen =
    requestedOrganisation === undefined
      ? memberships.length === 1
        ? memberships[0]
        : undefined
      : memberships.find((membership) => membership.orgId === requestedOrganisation);
  if (chosen === undefined) {
    if (requestedOrganisation !== undefined) {
      throw new ForbiddenError(`You have no access to organisation ${requestedOrganisation}`);
    }
    if (memberships.length === 0) throw new ForbiddenError("You are not a member of any organisation");
    throw new ValidationError("You belong to several organisations: choose one with the X-Organization-Id header", [
      { path: "X-Organization-Id", message: "Required when you belong to several organisations" },
    ]);
  }
  return { userId, username, orgId: chosen.orgId, role: chosen.role };
}
