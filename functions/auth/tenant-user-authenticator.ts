/**
 * A signed-in user acting for a tenant (the console's reads, `apiKeyOrUser`
 * routes): the verified access token, `X-Organization-Id` (required: data
 * reads always name their tenant) and `X-Environment` (`live` unless it says
 * `test`), a membership of that organisation with at least the route's role.
 * The result is a Principal with the tenancy a key of that organisation and
 * environment has, so everything after authentication (rate limit, tenancy
 * checks, cursors) is the same code; its `signedInUserId` makes the rate
 * limiter charge the user's own console budget, not the keys' (issue 21).
 *
 * The organisation's settings are cached per container for the key-cache
 * bound (`KEY_CACHE_TTL_SECONDS`, default 10), as key lookups are.
 */
import { ForbiddenError, NotFoundError, ValidationError } from "../domain/errors.js";
import { hasRole, type Role, roleRequirement } from "../domain/membership.js";
import type { Organisation } from "../domain/organisation.js";
import type { Principal } from "../domain/principal.js";
import type { Scope } from "../domain/scopes.js";
import { environmentOfHeader } from "../http/environment-header.js";
import { numberEnv } from "../runtime/env.js";
import { findOrganisation } from "../store/members/organisation-store.js";
import { DEFAULT_ROLLUP_RETENTION_DAYS } from "../store/table/retention.js";
import { authenticateSignedInUser, userInOrganisation } from "./user-authenticator.js";

const cacheTtlMs = numberEnv("KEY_CACHE_TTL_SECONDS", 10) * 1000;
const CACHE_MAX_ENTRIES = 1000;
const organisations = new Map<string, { readonly organisation: Organisation; readonly fetchedAt: number }>();

/** The `keyId` of a user's principal: rate-limit windows and logs tell users and keys apart by it. */
export function userCallerId(userId: string): string {
  return `user:${userId}`;
}

async function organisationOf(orgId: string, nowMs: number): Promise<Organisation> {
  const cached = organisations.get(orgId);
  if (cached !== undefined && nowMs - cached.fetchedAt < cacheTtlMs) return cached.organisation;
  const organisation = await findOrganisation(orgId);
  // A membership of an organisation that no longer exists: nothing to read.
  if (organisation === undefined) throw new NotFoundError(`Organisation ${orgId} not found`);
  if (cacheTtlMs > 0) {
    if (organisations.size >= CACHE_MAX_ENTRIES) organisations.clear();
    organisations.set(orgId, { organisation, fetchedAt: nowMs });
  }
  return organisation;
}

export interface TenantUserRequest {
  readonly authorization: string | undefined;
  readonly organisation: string | undefined;
  readonly environment: string | undefined;
}

export async function authenticateTenantUser(
  request: TenantUserRequest,
  needs: { readonly scope: Scope; readonly role: Role },
  nowMs = Date.now(),
): Promise<Principal> {
  const signedIn = await authenticateSignedInUser(request.authorization);
  if (request.organisation === undefined || request.organisation === "") {
    throw new ValidationError("Missing X-Organization-Id header: name the organisation whose data you read", [
      { path: "X-Organization-Id", message: "Required with an access token" },
    ]);
  }
  const environment = environmentOfHeader(request.environment);
  const user = await userInOrganisation(signedIn, request.organisation);
  if (!hasRole(user.role, needs.role)) {
    throw new ForbiddenError(
      `Your role in organisation ${user.orgId} is ${user.role}; this action needs ${roleRequirement(needs.role)}`,
    );
  }
  const organisation = await organisationOf(user.orgId, nowMs);
  return {
    keyId: userCallerId(user.userId),
    orgId: user.orgId,
    environment,
    scopes: [needs.scope],
    retentionDays: organisation.retentionDays,
    rollupRetentionDays: organisation.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS,
    rateLimitPerMinute: organisation.rateLimitPerMinute,
    keyRateLimitPerMinute: organisation.keyRateLimitPerMinute,
    signedInUserId: user.userId,
  };
}
