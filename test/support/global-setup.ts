/**
 * Starts one in-memory DynamoDB Local for the whole run (free port on
 * 127.0.0.1), creates the table from the shared definition, and kills the
 * process by pid in teardown (and on exit, should the run crash).
 */
import type { TestProject } from "vitest/node";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { ensureTable } from "../../local/table-setup.js";

declare module "vitest" {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}

const TABLE_NAME = "ats-test";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  const client = createLocalDynamoClient(dynamo.endpoint);
  try {
    await ensureTable(client, TABLE_NAME);
  } finally {
    client.destroy();
  }
  project.provide("dynamodbEndpoint", dynamo.endpoint);
  project.provide("tableName", TABLE_NAME);
  return () => dynamo.stop();
}
