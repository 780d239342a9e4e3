/**
 * The database an operator CLI works on:
 * - `--aws`: the deployed table (`TABLE_NAME`, the stack output) with the
 *   default AWS credential chain;
 * - `DYNAMODB_ENDPOINT`, else the DynamoDB of a running `npm start` (from
 *   `$DATA_DIR/local.json`), else DynamoDB Local started on `$DATA_DIR` for
 *   the duration of the command.
 */

import { join } from "node:path";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { credentialsFor, type LocalCredentials } from "./dynamo-credentials.js";
import { createLocalDynamoClient } from "./dynamo-endpoint.js";
import { openLocalDatabase } from "./local-database.js";
import { readLocalJson, readSettings } from "./settings.js";

export interface CliDatabase {
  close(): Promise<void>;
}

async function isReachable(endpoint: string, credentials: LocalCredentials): Promise<boolean> {
  const client = createLocalDynamoClient(endpoint, credentials);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

export async function openCliDatabase(options: { readonly aws: boolean }): Promise<CliDatabase> {
  if (options.aws) {
    if (!process.env.TABLE_NAME) throw new Error("--aws needs TABLE_NAME (the stack's TableName output)");
    delete process.env.DYNAMODB_ENDPOINT;
    return { close: async () => undefined };
  }
  const settings = readSettings();
  // The DynamoDB Local of a running `npm start` on this DATA_DIR: same data directory, same credentials.
  const running = readLocalJson(settings)?.dynamodbEndpoint;
  const credentials = credentialsFor(join(settings.dataDirectory, "dynamodb"));
  const reuse =
    settings.dynamodbEndpoint === undefined && running !== undefined && (await isReachable(running, credentials))
      ? { endpoint: running, credentials }
      : undefined;
  const database = await openLocalDatabase(settings, reuse);
  return { close: () => database.stop() };
}
