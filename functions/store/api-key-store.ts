/**
 * Persistence of API keys. The item is addressed by the SHA-256 of the key
 * (`APIKEY#<hash>`), so authentication is one strongly consistent GetItem;
 * GSI1 lists an organisation's keys and GSI2 finds a key by its id.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type Environment, generateApiKey } from "../domain/api-key.js";
import type { ApiKeyRecord } from "../domain/api-key-record.js";
import { NotFoundError } from "../domain/errors.js";
import { newId } from "../domain/ids.js";
import type { Scope } from "../domain/scopes.js";
import { batchGetItems } from "./batch-get.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { apiKeyById, apiKeyIndexKeys, apiKeyKey, apiKeysOfOrganisation, type ItemKey } from "./keys.js";

export const API_KEY_ENTITY = "apiKey";

function recordFromItem(item: Record<string, unknown>): ApiKeyRecord {
  const { PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK, entity, keyHash, ...record } = item;
  return record as unknown as ApiKeyRecord;
}

/** The base-table key of an item read from a keys-only index. */
function baseKeyOf(indexEntry: Record<string, unknown>): ItemKey {
  return { PK: String(indexEntry.PK), SK: String(indexEntry.SK) };
}

export async function findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: apiKeyKey(keyHash), ConsistentRead: true }),
  );
  return result.Item === undefined ? undefined : recordFromItem(result.Item);
}

export interface NewApiKey {
  readonly orgId: string;
  readonly environment: Environment;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly retentionDays: number;
  readonly createdBy: string;
}

/** Stores a new key and returns its record with the plaintext, which is never stored. */
export async function createApiKey(
  input: NewApiKey,
  nowMs = Date.now(),
): Promise<{ record: ApiKeyRecord; plaintext: string }> {
  const generated = generateApiKey(input.environment);
  const record: ApiKeyRecord = {
    ...input,
    keyId: newId("apiKey", nowMs),
    hint: generated.hint,
    createdAt: new Date(nowMs).toISOString(),
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...apiKeyKey(generated.hash),
        ...apiKeyIndexKeys(record.orgId, record.keyId, record.createdAt),
        entity: API_KEY_ENTITY,
        keyHash: generated.hash,
        ...record,
      },
      ConditionExpression: "attribute_not_exists(PK)",
    }),
  );
  return { record, plaintext: generated.plaintext };
}

export async function listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
  const keys: ItemKey[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: "GSI1",
        KeyConditionExpression: "GSI1PK = :pk",
        ExpressionAttributeValues: { ":pk": apiKeysOfOrganisation(orgId) },
        ExclusiveStartKey: startKey,
      }),
    );
    keys.push(...(page.Items ?? []).map(baseKeyOf));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return (await batchGetItems(keys)).map(recordFromItem);
}

/** Marks a key revoked; it is refused from then on (after at most the key-cache bound). */
export async function revokeApiKey(keyId: string, nowMs = Date.now()): Promise<ApiKeyRecord> {
  const found = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: "GSI2",
      KeyConditionExpression: "GSI2PK = :pk",
      ExpressionAttributeValues: { ":pk": apiKeyById(keyId) },
    }),
  );
  const indexEntry = found.Items?.[0];
  if (indexEntry === undefined) throw new NotFoundError(`API key ${keyId} not found`);
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: baseKeyOf(indexEntry),
      UpdateExpression: "SET revokedAt = if_not_exists(revokedAt, :now)",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":now": new Date(nowMs).toISOString() },
      ReturnValues: "ALL_NEW",
    }),
  );
  return recordFromItem(result.Attributes ?? {});
}
