import type { Environment } from "./api-key.js";
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
}

/** Whether a stored item belongs to the principal's organisation and environment. */
export function ownsTenantData(
  principal: Principal,
  item: { readonly orgId: string; readonly environment: string },
): boolean {
  return item.orgId === principal.orgId && item.environment === principal.environment;
}
