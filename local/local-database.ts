/**
 * The database the local tools use: `DYNAMODB_ENDPOINT` if set, otherwise
 * DynamoDB Local persisted under `$DATA_DIR/dynamodb`. The table is created
 * if missing and the service modules are pointed at it.
 */
import { join } from "node:path";
import { configureServiceEnvironment, createLocalDynamoClient } from "./dynamo-endpoint.js";
import { startDynamoDbLocal } from "./dynamodb-local.js";
import type { LocalSettings } from "./settings.js";
import { ensureTable } from "./table-setup.js";

export interface LocalDatabase {
  readonly endpoint: string;
  /** Whether this process started DynamoDB Local (and so must stop it). */
  readonly started: boolean;
  readonly tableCreated: boolean;
  stop(): Promise<void>;
}

export async function openLocalDatabase(settings: LocalSettings, endpointOverride?: string): Promise<LocalDatabase> {
  const existing = endpointOverride ?? settings.dynamodbEndpoint;
  const running =
    existing === undefined
      ? await startDynamoDbLocal({ dataDirectory: join(settings.dataDirectory, "dynamodb") })
      : undefined;
  const endpoint = running?.endpoint ?? existing ?? "";
  try {
    const client = createLocalDynamoClient(endpoint);
    const tableCreated = await ensureTable(client, settings.tableName).finally(() => client.destroy());
    configureServiceEnvironment(endpoint, settings.tableName);
    return {
      endpoint,
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
