/** Persistence of organisations (`ORG#<orgId>` / `ORG`). */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Organisation } from "../domain/organisation.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { apiKeyCredentialKey, organisationKey } from "./keys.js";
import { DEFAULT_RETENTION_DAYS, DEFAULT_ROLLUP_RETENTION_DAYS } from "./retention.js";

export const ORGANISATION_ENTITY = "organisation";

export async function findOrganisation(orgId: string): Promise<Organisation | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: organisationKey(orgId), ConsistentRead: true }),
  );
  if (result.Item === undefined) return undefined;
  const { PK, SK, entity, ...organisation } = result.Item;
  return organisation as Organisation;
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
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...organisationKey(orgId), entity: ORGANISATION_ENTITY, ...organisation },
        ConditionExpression: "attribute_not_exists(PK)",
      }),
    );
    return organisation;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      const raced = await findOrganisation(orgId);
      if (raced !== undefined) return raced;
    }
    throw error;
  }
}

/** A transaction item that fails unless the organisation exists. */
export function organisationExistsCheck(orgId: string) {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: organisationKey(orgId),
      ConditionExpression: "attribute_exists(PK)",
    },
  };
}

/** Settings an operator can change; keys carry a copy so authentication stays one read. */
export interface OrganisationSettings {
  readonly retentionDays?: number;
  readonly rollupRetentionDays?: number;
  readonly rateLimitPerMinute?: number;
  readonly keyRateLimitPerMinute?: number;
}

/**
 * Changes an organisation's settings and every key's copy of them, paging
 * through all of the organisation's keys; new requests see them after at most
 * the key-cache bound (existing items keep their TTL).
 */
export async function updateOrganisationSettings(orgId: string, settings: OrganisationSettings): Promise<void> {
  const entries = Object.entries(settings).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  const update = {
    UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(", ")}`,
    ConditionExpression: "attribute_exists(PK)",
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
  };
  await documentClient.send(new UpdateCommand({ TableName: tableName, Key: organisationKey(orgId), ...update }));
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :keys)",
        ExpressionAttributeValues: { ":pk": organisationKey(orgId).PK, ":keys": "APIKEY#" },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const record of page.Items ?? []) {
      for (const key of [
        { PK: String(record.PK), SK: String(record.SK) },
        apiKeyCredentialKey(String(record.keyHash)),
      ]) {
        await documentClient.send(new UpdateCommand({ TableName: tableName, Key: key, ...update }));
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}
