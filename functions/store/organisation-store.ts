/** Persistence of organisations (`ORG#<orgId>` / `ORG`). */
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Organisation } from "../domain/organisation.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { organisationKey } from "./keys.js";
import { DEFAULT_RETENTION_DAYS } from "./retention.js";

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
