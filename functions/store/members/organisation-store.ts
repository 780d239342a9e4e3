/** Persistence of organisations (`ORG#<orgId>` / `ORG`). */
import type { Organisation } from "../../domain/organisation.js";
import { defineEntity } from "../table/entity.js";
import { API_KEY_RECORD_PREFIX, apiKeyCredentialKey, organisationKey, organisationPartition } from "../table/keys.js";
import { DEFAULT_RETENTION_DAYS, DEFAULT_ROLLUP_RETENTION_DAYS } from "../table/retention.js";
import {
  existsCheck,
  getItem,
  keyOf,
  putIfAbsent,
  queryPages,
  type TransactItem,
  updateIfExists,
} from "../table/table-operations.js";

export const ORGANISATION_ENTITY = "organisation";

/** An organisation (`ORG#<orgId>` / `ORG`); `activeKeyCount` is the key store's bookkeeping. */
const organisationEntity = defineEntity<Organisation, Organisation>({
  tag: ORGANISATION_ENTITY,
  fields: { orgId: "string", name: "string", retentionDays: "number", createdAt: "string" },
  key: (organisation) => organisationKey(organisation.orgId),
  attributes: (organisation) => ({ ...organisation }),
});

export async function findOrganisation(orgId: string): Promise<Organisation | undefined> {
  const item = await getItem(organisationKey(orgId));
  return item === undefined ? undefined : organisationEntity.fromItem(item);
}

/** Returns the organisation, creating it (with default retention) if it does not exist. */
export async function ensureOrganisation(orgId: string, nowMs = Date.now()): Promise<Organisation> {
  const existing = await findOrganisation(orgId);
  if (existing !== undefined) return existing;
  const organisation: Organisation = {
    orgId,
    name: orgId,
    retentionDays: DEFAULT_RETENTION_DAYS,
    rollupRetentionDays: DEFAULT_ROLLUP_RETENTION_DAYS,
    createdAt: new Date(nowMs).toISOString(),
  };
  const outcome = await putIfAbsent(organisationEntity.toItem(organisation));
  if (outcome.written) return organisation;
  const raced = await findOrganisation(orgId);
  if (raced === undefined) throw new Error(`Organisation ${orgId} was created and removed concurrently`);
  return raced;
}

/** A transaction item that fails unless the organisation exists. */
export function organisationExistsCheck(orgId: string): TransactItem {
  return existsCheck(organisationKey(orgId));
}

/** Settings an operator can change; keys carry a copy so authentication stays one read. */
export interface OrganisationSettings {
  readonly retentionDays?: number;
  readonly rollupRetentionDays?: number;
  readonly rateLimitPerMinute?: number;
  readonly keyRateLimitPerMinute?: number;
}

/** The settings updateOrganisationSettings may write: its allow-list. */
const SETTINGS = [
  "retentionDays",
  "rollupRetentionDays",
  "rateLimitPerMinute",
  "keyRateLimitPerMinute",
] as const satisfies readonly (keyof OrganisationSettings)[];

/**
 * Changes an organisation's settings and every key's copy of them, paging
 * through all of the organisation's keys; new requests see them after at most
 * the key-cache bound (existing items keep their TTL).
 */
export async function updateOrganisationSettings(orgId: string, settings: OrganisationSettings): Promise<void> {
  const set: Record<string, number> = {};
  for (const [name, value] of Object.entries(settings)) if (typeof value === "number") set[name] = value;
  if (Object.keys(set).length === 0) return;
  const update = { allowed: SETTINGS } as const;
  await updateIfExists(organisationKey(orgId), { set }, update);
  for await (const page of queryPages({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :keys)",
    ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":keys": API_KEY_RECORD_PREFIX },
    ConsistentRead: true,
  })) {
    for (const record of page.items) {
      for (const key of [keyOf(record), apiKeyCredentialKey(String(record.keyHash))]) {
        await updateIfExists(key, { set }, update);
      }
    }
  }
}
