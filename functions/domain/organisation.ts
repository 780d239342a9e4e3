/** Organisations own API keys and, through them, all recorded data. */

export interface Organisation {
  readonly orgId: string;
  readonly name: string;
  /** Days sessions and events are kept (DynamoDB TTL). */
  readonly retentionDays: number;
  /** Days analytics rollups are kept. */
  readonly rollupRetentionDays?: number | undefined;
  /** Requests per minute of all its API keys together, when not the service default. */
  readonly rateLimitPerMinute?: number | undefined;
  /** Requests per minute of any one of its keys, when lower than the organisation's. */
  readonly keyRateLimitPerMinute?: number | undefined;
  readonly createdAt: string;
}

/** Organisation ids are slugs: they appear in keys and CLI flags. */
export const ORGANISATION_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export function isOrganisationId(value: string): boolean {
  return ORGANISATION_ID_PATTERN.test(value);
}
