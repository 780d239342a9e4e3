/** Clients for a local DynamoDB endpoint (DynamoDB Local ignores credentials, but the SDK needs some). */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

export const LOCAL_REGION = "us-east-1";
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" } as const;

export function createLocalDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
}

/**
 * Points the service modules (functions/…) at a local table. Must run before
 * they are imported: they read their configuration once, like a cold start.
 */
export function configureServiceEnvironment(endpoint: string, tableName: string): void {
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.AWS_REGION ??= LOCAL_REGION;
  process.env.AWS_ACCESS_KEY_ID ??= LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY ??= LOCAL_CREDENTIALS.secretAccessKey;
}
