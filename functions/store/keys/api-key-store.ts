/**
 * Persistence of API keys. Each key is two items written together:
 * - the credential, under the key's SHA-256 (`APIKEY#<hash>`): authentication
 *   is one strongly consistent GetItem;
 * - the record, in its organisation's partition (`ORG#<org>` / `APIKEY#<id>`):
 *   listing and lookups by id are strongly consistent key reads.
 * Every lifecycle action writes an audit item in the same transaction.
 */
import { type Environment, generateApiKey } from "../../domain/api-key.js";
import {
  type ApiKeyCredential,
  type ApiKeyRecord,
  type AuditAction,
  type AuditRecord,
  isUsable,
  LAST_USED_WRITE_INTERVAL_MS,
} from "../../domain/api-key-record.js";
import { ConflictError, NotFoundError } from "../../domain/errors.js";
import { isId, newId } from "../../domain/ids.js";
import { LIMITS } from "../../domain/limits.js";
import type { Scope } from "../../domain/scopes.js";
import { findOrganisation } from "../members/organisation-store.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity, type FieldSpec, type Item } from "../table/entity.js";
import {
  API_KEY_RECORD_PREFIX,
  apiKeyAuditKey,
  apiKeyAuditPrefix,
  apiKeyCredentialKey,
  apiKeyIdIndexKeys,
  apiKeyIdPartition,
  apiKeyRecordKey,
  organisationKey,
  organisationPartition,
  orgIdOfPartition,
} from "../table/keys.js";
import { DEFAULT_ROLLUP_RETENTION_DAYS } from "../table/retention.js";
import { INDEXES } from "../table/table-definition.js";
import {
  getItem,
  putIfAbsentItem,
  queryAll,
  queryPage,
  type TransactItem,
  transact,
  updateIfExists,
} from "../table/table-operations.js";

export const API_KEY_CREDENTIAL_ENTITY = "apiKeyCredential";
export const API_KEY_ENTITY = "apiKey";
export const AUDIT_ENTITY = "audit";

/** Who performed a lifecycle action, as recorded in the audit trail. */
export interface KeyActor {
  readonly name: string;
  readonly id?: string | undefined;
}

const CREDENTIAL_FIELDS = {
  keyId: "string",
  orgId: "string",
  environment: "string",
  scopes: "array",
  retentionDays: "number",
} as const satisfies FieldSpec;

/** What authentication reads: `APIKEY#<sha256>` / `APIKEY` (the key itself is never stored). */
const credentialEntity = defineEntity<ApiKeyCredential, { record: ApiKeyRecord; keyHash: string }>({
  tag: API_KEY_CREDENTIAL_ENTITY,
  fields: CREDENTIAL_FIELDS,
  key: ({ keyHash }) => apiKeyCredentialKey(keyHash),
  attributes: ({ record }) => ({ ...credentialOf(record) }),
});

/** The organisation's record of a key (GSI2: found by its id alone), with the hash that reaches its credential. */
const recordEntity = defineEntity<ApiKeyRecord, { record: ApiKeyRecord; keyHash: string }>({
  tag: API_KEY_ENTITY,
  fields: { ...CREDENTIAL_FIELDS, name: "string", hint: "string", createdAt: "string", createdBy: "string" },
  storageAttributes: ["keyHash"],
  key: ({ record }) => apiKeyRecordKey(record.orgId, record.keyId),
  indexKeys: ({ record }) => apiKeyIdIndexKeys(record.keyId),
  attributes: ({ record, keyHash }) => ({ keyHash, ...record }),
});

/** A lifecycle action on a key, in its organisation's partition. */
const auditEntity = defineEntity<AuditRecord, { orgId: string; audit: AuditRecord }>({
  tag: AUDIT_ENTITY,
  fields: { id: "string", keyId: "string", action: "string", actor: "string", at: "string" },
  storageAttributes: ["orgId"],
  key: ({ orgId, audit }) => apiKeyAuditKey(orgId, audit.keyId, audit.id),
  attributes: ({ orgId, audit }) => ({ orgId, ...audit }),
});

const recordFromItem = recordEntity.fromItem;

function credentialOf(record: ApiKeyRecord): ApiKeyCredential {
  return {
    keyId: record.keyId,
    orgId: record.orgId,
    environment: record.environment,
    scopes: record.scopes,
    retentionDays: record.retentionDays,
    rollupRetentionDays: record.rollupRetentionDays,
    rateLimitPerMinute: record.rateLimitPerMinute,
    keyRateLimitPerMinute: record.keyRateLimitPerMinute,
    revokedAt: record.revokedAt,
    expiresAt: record.expiresAt,
  };
}

function auditPut(
  orgId: string,
  keyId: string,
  action: AuditAction,
  actor: KeyActor,
  at: string,
  details?: AuditRecord["details"],
): TransactItem {
  const audit: AuditRecord = {
    id: newId("audit", Date.parse(at)),
    keyId,
    action,
    actor: actor.name,
    actorId: actor.id,
    at,
    details,
  };
  return putIfAbsentItem(auditEntity.toItem({ orgId, audit }));
}

function newKeyPuts(record: ApiKeyRecord, keyHash: string): TransactItem[] {
  return [
    putIfAbsentItem(credentialEntity.toItem({ record, keyHash })),
    putIfAbsentItem(recordEntity.toItem({ record, keyHash })),
  ];
}

export async function findCredential(keyHash: string): Promise<ApiKeyCredential | undefined> {
  const item = await getItem(apiKeyCredentialKey(keyHash));
  return item === undefined ? undefined : credentialEntity.fromItem(item);
}

export interface NewApiKey {
  readonly orgId: string;
  readonly environment: Environment;
  readonly name: string;
  readonly scopes: readonly Scope[];
}

/**
 * The organisation's count of active keys moved by `delta`, as a transaction item; an increase fails
 * (ConditionalCheckFailed) when the organisation is missing or already holds LIMITS.activeKeysPerOrganisation.
 * A key stops counting when it is revoked or replaced by a rotation (its replacement counts instead).
 */
function activeKeyCountChange(orgId: string, delta: 1 | -1): TransactItem {
  return {
    Update: {
      Key: organisationKey(orgId),
      UpdateExpression: "ADD activeKeyCount :delta",
      ConditionExpression:
        delta > 0
          ? "attribute_exists(PK) AND (attribute_not_exists(activeKeyCount) OR activeKeyCount < :max)"
          : "attribute_exists(PK)",
      ExpressionAttributeValues: {
        ":delta": delta,
        ...(delta > 0 ? { ":max": LIMITS.activeKeysPerOrganisation } : {}),
      },
    },
  };
}

/**
 * Gives the organisation its `activeKeyCount` when it has none (its keys predate the count): counts its
 * active keys once and sets the count if still absent. Every change of the count goes through here
 * first, so a concurrent creation or revocation either sees the count set or loses nothing: a count
 * set by another request wins (the SET is conditional on its absence).
 */
async function ensureActiveKeyCount(orgId: string, nowMs: number): Promise<void> {
  const counted = await getItem(organisationKey(orgId), { projection: ["activeKeyCount"] });
  if (counted?.activeKeyCount !== undefined) return;
  const records = (await queryPartition(organisationPartition(orgId), API_KEY_RECORD_PREFIX)).map(recordFromItem);
  const active = records.filter((record) => isUsable(record, nowMs) && record.rotatedTo === undefined).length;
  try {
    await updateIfExists(
      organisationKey(orgId),
      { set: { activeKeyCount: active } },
      { allowed: ["activeKeyCount"], condition: { expression: "attribute_not_exists(#activeKeyCount)" } },
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Stores a new key of an existing organisation (carrying the organisation's
 * retention, so authentication needs no second read) and returns its record
 * with the plaintext, which is never stored.
 */
export async function createApiKey(
  input: NewApiKey,
  actor: KeyActor,
  nowMs = Date.now(),
): Promise<{ record: ApiKeyRecord; plaintext: string }> {
  const organisation = await findOrganisation(input.orgId);
  if (organisation === undefined) throw new NotFoundError(`Organisation ${input.orgId} not found`);
  await ensureActiveKeyCount(input.orgId, nowMs);
  const generated = generateApiKey(input.environment);
  const createdAt = new Date(nowMs).toISOString();
  const record: ApiKeyRecord = {
    ...input,
    retentionDays: organisation.retentionDays,
    rollupRetentionDays: organisation.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS,
    rateLimitPerMinute: organisation.rateLimitPerMinute,
    keyRateLimitPerMinute: organisation.keyRateLimitPerMinute,
    keyId: newId("apiKey", nowMs),
    hint: generated.hint,
    createdAt,
    createdBy: actor.name,
  };
  try {
    await transact([
      activeKeyCountChange(input.orgId, 1),
      ...newKeyPuts(record, generated.hash),
      auditPut(input.orgId, record.keyId, "key.created", actor, createdAt, {
        environment: record.environment,
        scopes: record.scopes.join(" "),
      }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) {
      throw new ConflictError(
        `Organisation ${input.orgId} has ${LIMITS.activeKeysPerOrganisation} active API keys, the most allowed; revoke one before creating another`,
      );
    }
    throw error;
  }
  return { record, plaintext: generated.plaintext };
}

function queryPartition(partition: string, sortKeyPrefix: string): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": partition, ":prefix": sortKeyPrefix },
    ConsistentRead: true,
  });
}

/** An organisation's keys, oldest first. */
export async function listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
  return (await queryPartition(organisationPartition(orgId), API_KEY_RECORD_PREFIX)).map(recordFromItem);
}

async function getRecordItem(orgId: string, keyId: string): Promise<Item | undefined> {
  if (!isId("apiKey", keyId)) return undefined; // not a key id: no read (and no oversized key)
  return getItem(apiKeyRecordKey(orgId, keyId));
}

/** A key of the organisation; keys of other organisations are "not found". */
export async function getApiKey(orgId: string, keyId: string): Promise<ApiKeyRecord> {
  const item = await getRecordItem(orgId, keyId);
  if (item === undefined) throw new NotFoundError(`API key ${keyId} not found`);
  return recordFromItem(item);
}

/** The organisation that owns a key id (operator CLI only: reads a keys-only index). */
export async function findApiKeyOrganisation(keyId: string): Promise<string | undefined> {
  const index = INDEXES.agentSessionsAndKeyIds;
  const page = await queryPage({
    index,
    KeyConditionExpression: "#pk = :pk",
    ExpressionAttributeNames: { "#pk": index.partitionKey },
    ExpressionAttributeValues: { ":pk": apiKeyIdPartition(keyId) },
  });
  const partition = page.items[0]?.PK;
  return typeof partition === "string" ? orgIdOfPartition(partition) : undefined;
}

/**
 * Issues a replacement with the same name, environment and scopes; the old
 * key keeps working until `now + overlapSeconds`, then is refused.
 */
export async function rotateApiKey(
  orgId: string,
  keyId: string,
  overlapSeconds: number,
  actor: KeyActor,
  nowMs = Date.now(),
): Promise<{ record: ApiKeyRecord; plaintext: string; previous: ApiKeyRecord }> {
  const item = await getRecordItem(orgId, keyId);
  if (item === undefined) throw new NotFoundError(`API key ${keyId} not found`);
  const previous = recordFromItem(item);
  if (!isUsable(previous, nowMs)) {
    throw new ConflictError(`API key ${keyId} is ${previous.revokedAt ? "revoked" : "expired"} and cannot be rotated`);
  }
  if (previous.rotatedTo !== undefined) {
    throw new ConflictError(`API key ${keyId} was already rotated to ${previous.rotatedTo}; rotate that key instead`);
  }
  const now = new Date(nowMs).toISOString();
  const overlapEnd = nowMs + overlapSeconds * 1000;
  const expiresAt = new Date(
    previous.expiresAt === undefined ? overlapEnd : Math.min(overlapEnd, Date.parse(previous.expiresAt)),
  ).toISOString();
  const generated = generateApiKey(previous.environment);
  const record: ApiKeyRecord = {
    keyId: newId("apiKey", nowMs),
    orgId,
    environment: previous.environment,
    name: previous.name,
    scopes: previous.scopes,
    retentionDays: previous.retentionDays,
    rollupRetentionDays: previous.rollupRetentionDays,
    rateLimitPerMinute: previous.rateLimitPerMinute,
    keyRateLimitPerMinute: previous.keyRateLimitPerMinute,
    hint: generated.hint,
    createdAt: now,
    createdBy: actor.name,
    rotatedFrom: keyId,
  };
  const expireOld = {
    UpdateExpression: "SET expiresAt = :expiresAt",
    ConditionExpression: "attribute_exists(PK) AND attribute_not_exists(revokedAt)",
    ExpressionAttributeValues: { ":expiresAt": expiresAt },
  };
  try {
    await transact([
      ...newKeyPuts(record, generated.hash),
      {
        Update: {
          Key: apiKeyRecordKey(orgId, keyId),
          UpdateExpression: "SET expiresAt = :expiresAt, rotatedTo = :rotatedTo",
          ConditionExpression: "attribute_not_exists(revokedAt) AND attribute_not_exists(rotatedTo)",
          ExpressionAttributeValues: { ":expiresAt": expiresAt, ":rotatedTo": record.keyId },
        },
      },
      { Update: { Key: apiKeyCredentialKey(String(item.keyHash)), ...expireOld } },
      auditPut(orgId, keyId, "key.rotated", actor, now, { replacedBy: record.keyId, expiresAt, overlapSeconds }),
      auditPut(orgId, record.keyId, "key.created", actor, now, { rotatedFrom: keyId }),
    ]);
  } catch (error) {
    if (isConditionFailure(error)) {
      throw new ConflictError(`API key ${keyId} was changed by another request; reload it and retry`);
    }
    throw error;
  }
  return { record, plaintext: generated.plaintext, previous: { ...previous, expiresAt, rotatedTo: record.keyId } };
}

/** Revokes a key (idempotent): it is refused from then on, after at most the key-cache bound. */
export async function revokeApiKey(
  orgId: string,
  keyId: string,
  actor: KeyActor,
  nowMs = Date.now(),
): Promise<ApiKeyRecord> {
  // A rotation between the read and the write changes whether the key still counts as active: retried.
  for (let attempt = 1; ; attempt++) {
    const item = await getRecordItem(orgId, keyId);
    if (item === undefined) throw new NotFoundError(`API key ${keyId} not found`);
    const existing = recordFromItem(item);
    if (existing.revokedAt !== undefined) return existing;
    await ensureActiveKeyCount(orgId, nowMs);
    const revokedAt = new Date(nowMs).toISOString();
    const revoke = {
      UpdateExpression: "SET revokedAt = :revokedAt",
      ConditionExpression: "attribute_exists(PK) AND attribute_not_exists(revokedAt)",
      ExpressionAttributeValues: { ":revokedAt": revokedAt },
    };
    const counted = existing.rotatedTo === undefined;
    try {
      await transact([
        {
          Update: {
            Key: apiKeyRecordKey(orgId, keyId),
            ...revoke,
            ConditionExpression: `${revoke.ConditionExpression} AND ${counted ? "attribute_not_exists(rotatedTo)" : "attribute_exists(rotatedTo)"}`,
          },
        },
        { Update: { Key: apiKeyCredentialKey(String(item.keyHash)), ...revoke } },
        auditPut(orgId, keyId, "key.revoked", actor, revokedAt),
        // A key replaced by a rotation stopped counting then.
        ...(counted ? [activeKeyCountChange(orgId, -1)] : []),
      ]);
      return { ...existing, revokedAt };
    } catch (error) {
      // Revoked concurrently by another request (the outcome is the same), or rotated meanwhile: read again.
      if (!isConditionFailure(error)) throw error;
      if (attempt >= 3) throw new ConflictError(`API key ${keyId} was changed by another request; reload it and retry`);
    }
  }
}

/** The audit trail of a key, oldest first. */
export async function listApiKeyAudit(orgId: string, keyId: string): Promise<AuditRecord[]> {
  await getApiKey(orgId, keyId);
  const items = await queryPartition(organisationPartition(orgId), apiKeyAuditPrefix(keyId));
  return items.map(auditEntity.fromItem);
}

/**
 * Stamps `lastUsedAt`, at most once per LAST_USED_WRITE_INTERVAL_MS per key
 * across all containers (a conditional write; a lost race writes nothing).
 */
export async function recordKeyUse(orgId: string, keyId: string, nowMs = Date.now()): Promise<void> {
  try {
    await updateIfExists(
      apiKeyRecordKey(orgId, keyId),
      { set: { lastUsedAt: new Date(nowMs).toISOString() } },
      {
        allowed: ["lastUsedAt"],
        condition: {
          expression: "attribute_not_exists(#lastUsedAt) OR #lastUsedAt < :cutoff",
          values: { ":cutoff": new Date(nowMs - LAST_USED_WRITE_INTERVAL_MS).toISOString() },
        },
      },
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
