import type { Environment } from "./api-key.js";
import { ForbiddenError } from "./errors.js";
import type { Scope } from "./scopes.js";

/** Who is calling: the organisation and environment an API key acts for. */
export interface Principal {
  readonly keyId: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly scopes: readonly Scope[];
  /** Days the organisation keeps data; sets each written item's TTL. */
  readonly retentionDays: number;
  /** Days the organisation keeps analytics rollups (longer than raw data). */
  readonly rollupRetentionDays: number;
  /** The organisation's requests per minute (all its keys together), when it overrides the default. */
  readonly rateLimitPerMinute?: number | undefined;
  /** The organisation's requests per minute for any one key, when it sets a lower one than its own. */
  readonly keyRateLimitPerMinute?: number | undefined;
  /**
   * Set when a signed-in user acts through the console (an access token, not an API key): the request then
   * spends that user's own console budget, never the budget the organisation's API keys write with.
   */
  readonly signedInUserId?: string | undefined;
  /**
   * Set when an end user posts through a feedback token (`fbt_…`): its scores are authored by the token and come
   * from `end_user`; `keyId` is then the token's id (its own small rate-limit budget).
   */
  readonly feedbackTokenId?: string | undefined;
}

/** Whether a stored item belongs to the principal's organisation and environment. */
export function ownsTenantData(
  principal: Principal,
  item: { readonly orgId: string; readonly environment: string },
): boolean {
  return item.orgId === principal.orgId && item.environment === principal.environment;
}

/**
 * The 403 for a session of another tenant, in the caller's terms: an API key, or a signed-in user reading
 * through the console (who holds no key, issue 21).
 */
export function foreignSessionError(principal: Principal, sessionId: string): ForbiddenError {
  return principal.signedInUserId === undefined
    ? new ForbiddenError(`This API key has no access to session ${sessionId}`)
    : new ForbiddenError(
        `Session ${sessionId} is not in organisation ${principal.orgId}'s ${principal.environment} environment`,
      );
}
