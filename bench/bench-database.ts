/**
 * The DynamoDB of a bench script: DynamoDB Local in memory on a free port,
 * the table from the shared definition, and the service modules pointed at it
 * (they must be imported after this, as at a cold start).
 */
import { configureServiceEnvironment, createLocalDynamoClient } from "../local/dynamo-endpoint.js";
import { type RunningDynamoDb, startDynamoDbLocal } from "../local/dynamodb-local.js";
import { ensureTable } from "../local/table-setup.js";

export async function startBenchDatabase(tableName: string): Promise<RunningDynamoDb> {
  const dynamo = await startDynamoDbLocal();
  const admin = createLocalDynamoClient(dynamo.endpoint, dynamo.credentials);
  try {
    await ensureTable(admin, tableName);
  } catch (error) {
    await dynamo.stop();
    throw error;
  } finally {
    admin.destroy();
  }
  configureServiceEnvironment(dynamo.endpoint, tableName, dynamo.credentials);
  return dynamo;
}
