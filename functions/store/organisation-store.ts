/** Persistence of organisations (`ORG#<orgId>` / `ORG`). */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Organisation } from "../domain/organisation.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { organisationKey } from "./keys.js";
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

/**
 * Sets how long the organisation keeps data and rollups. Keys carry a copy
 * (so authentication stays one read), so every key's credential is updated
 * too; new items get the new TTL from then on (after at most the key-cache
 * bound), existing items keep theirs.
 */
export async function setRetention(orgId: string, retentionDays: number, rollupRetentionDays: number): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: organisationKey(orgId),
      UpdateExpression: "SET retentionDays = :days, rollupRetentionDays = :rollupDays",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":days": retentionDays, ":rollupDays": rollupRetentionDays },
    }),
  );
  const records = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :keys)",
      ExpressionAttributeValues: { ":pk": organisationKey(orgId).PK, ":keys": "APIKEY#" },
      ConsistentRead: true,
    }),
  );
  for (const record of records.Items ?? []) {
    for (const key of [
      { PK: String(record.PK), SK: String(record.SK) },
      { PK: `APIKEY#${String(record.keyHash)}`, SK: "APIKEY" },
    ]) {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: "SET retentionDays = :days, rollupRetentionDays = :rollupDays",
          ConditionExpression: "attribute_exists(PK)",
          ExpressionAttributeValues: { ":days": retentionDays, ":rollupDays": rollupRetentionDays },
        }),
      );
    }
  }
}
