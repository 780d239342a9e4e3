/**
 * The database the local tools use: `DYNAMODB_ENDPOINT` if set, otherwise
 * DynamoDB Local persisted under `$DATA_DIR/dynamodb`. The table is created
 * if missing and the service modules are pointed at it.
 */
import { join } from "node:path";
import { DEFAULT_LOCAL_CREDENTIALS, type LocalCredentials } from "./dynamo-credentials.js";
import { configureServiceEnvironment, createLocalDynamoClient } from "./dynamo-endpoint.js";
import { startDynamoDbLocal } from "./dynamodb-local.js";
import type { LocalSettings } from "./settings.js";
import { ensureTable } from "./table-setup.js";

export interface LocalDatabase {
  readonly endpoint: string;
  readonly credentials: LocalCredentials;
  /** Whether this process started DynamoDB Local (and so must stop it). */
  readonly started: boolean;
  readonly tableCreated: boolean;
  stop(): Promise<void>;
}

/** The credentials of a DynamoDB this process did not start (`DYNAMODB_ENDPOINT`): the environment's, if any. */
function environmentCredentials(): LocalCredentials {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = process.env;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : DEFAULT_LOCAL_CREDENTIALS;
}

/** The database, started here unless `existing` names one (with its credentials) or `DYNAMODB_ENDPOINT` is set. */
export async function openLocalDatabase(
  settings: LocalSettings,
  existing?: { readonly endpoint: string; readonly credentials: LocalCredentials },
): Promise<LocalDatabase> {
  const given =
    existing ??
    (settings.dynamodbEndpoint === undefined
      ? undefined
      : { endpoint: settings.dynamodbEndpoint, credentials: environmentCredentials() });
  const running =
    given === undefined
      ? await startDynamoDbLocal({ dataDirectory: join(settings.dataDirectory, "dynamodb") })
      : undefined;
  const { endpoint, credentials } = running ?? given ?? { endpoint: "", credentials: DEFAULT_LOCAL_CREDENTIALS };
  try {
    const client = createLocalDynamoClient(endpoint, credentials);
    const tableCreated = await ensureTable(client, settings.tableName).finally(() => client.destroy());
    configureServiceEnvironment(endpoint, settings.tableName, credentials);
    return {
      endpoint,
      credentials,
      started: running !== undefined,
      tableCreated,
      stop: async () => {
        await running?.stop();
      },
    };
  } catch (error) {
    await running?.stop();
    throw error;
  }
}
