/**
 * Where offloaded event fields live in the payload bucket, and how long S3
 * keeps them. Pure constants and key builders, shared by the payload store
 * (`payload-store.ts`) and the bucket's CDK construct
 * (`lib/constructs/payload-bucket.ts`), so the lifecycle rules and the tags
 * the writer sets cannot drift apart. No AWS SDK here: the CDK app imports it.
 */

/** Every offloaded object's key starts with this; the bucket's lifecycle rules filter on it. */
export const PAYLOAD_PREFIX = "payloads/";

/** The event attributes that may be offloaded (each then stored as `<field>Ref`). */
export const OFFLOADABLE_FIELDS = ["toolInputJson", "toolOutputJson", "reasoning"] as const;

/** One of {@link OFFLOADABLE_FIELDS}. */
export type OffloadableField = (typeof OFFLOADABLE_FIELDS)[number];

/** The tenant and session whose payloads share one key prefix. */
export interface SessionLocation {
  readonly orgId: string;
  readonly environment: string;
  readonly sessionId: string;
}

/** The event a payload belongs to. */
export interface PayloadLocation extends SessionLocation {
  readonly eventId: string;
}

/** The object tag whose value is the retention tier (days) of the object. */
export const RETENTION_TAG = "retention-days";

/**
 * The expiry periods (days) of the bucket's lifecycle rules, one rule per
 * tier. An object is tagged with the smallest tier that is at least its
 * organisation's retention, so S3 never deletes a payload before DynamoDB TTL
 * deletes the event that points to it; it outlives the event by at most the
 * gap to the next tier (e.g. an organisation keeping data 100 days has its
 * payloads expire after 180). The last tier is the longest retention an
 * organisation can set (`npm run orgs -- retention` accepts 1–3650 days).
 */
export const RETENTION_TIERS_DAYS = [1, 7, 30, 90, 180, 365, 730, 1095, 1825, 3650] as const;

/** The longest retention a payload can be stored for: the last of {@link RETENTION_TIERS_DAYS}. */
export const MAX_PAYLOAD_RETENTION_DAYS = 3650;

/**
 * The retention tier (days) of a payload written for an organisation keeping
 * data `retentionDays` days: the smallest tier not shorter than it.
 *
 * @throws RangeError when `retentionDays` is not a positive number of at most
 * {@link MAX_PAYLOAD_RETENTION_DAYS} (no tier would keep the payload long enough).
 */
export function retentionTierDays(retentionDays: number): number {
  const tier = RETENTION_TIERS_DAYS.find((days) => days >= retentionDays);
  if (!(retentionDays > 0) || tier === undefined) {
    throw new RangeError(
      `Retention of ${retentionDays} days is outside 0 < days ≤ ${MAX_PAYLOAD_RETENTION_DAYS}: no payload lifecycle tier fits`,
    );
  }
  return tier;
}

function segment(name: string, value: string): string {
  if (value === "" || value.includes("/")) {
    throw new Error(`Payload key segment ${name} must be non-empty and contain no "/", got "${value}"`);
  }
  return value;
}

/** `payloads/<orgId>/<environment>/<sessionId>/`: every payload of one session, and nothing else. */
export function sessionPayloadPrefix(location: SessionLocation): string {
  return `${PAYLOAD_PREFIX}${segment("orgId", location.orgId)}/${segment("environment", location.environment)}/${segment("sessionId", location.sessionId)}/`;
}

/**
 * `payloads/<orgId>/<environment>/<sessionId>/<eventId>/<field>`: deterministic, so a
 * retried write of the same event overwrites its own object.
 */
export function payloadKey(location: PayloadLocation, field: OffloadableField): string {
  return `${sessionPayloadPrefix(location)}${segment("eventId", location.eventId)}/${field}`;
}
