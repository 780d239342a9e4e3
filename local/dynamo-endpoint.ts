/** Clients for a local DynamoDB endpoint, with the credentials that select its database (dynamo-credentials.ts). */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { LOCAL_REGION, type LocalCredentials } from "./dynamo-credentials.js";

export { LOCAL_REGION };

export function createLocalDynamoClient(endpoint: string, credentials: LocalCredentials): DynamoDBClient {
  // A copy: the SDK marks the credential objects it is given.
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: { ...credentials }, maxAttempts: 1 });
}

/**
 * Points the service modules (functions/…) at a local table, with the local database's credentials (the
 * service's clients read them from the environment). Must run before they are imported: they read their
 * configuration once, like a cold start.
 */
export function configureServiceEnvironment(endpoint: string, tableName: string, credentials: LocalCredentials): void {
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.AWS_REGION ??= LOCAL_REGION;
  process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
}
