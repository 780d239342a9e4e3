/**
 * Issue 11, defect 4: DynamoDB Local listens on every interface and checks no signature; with `-sharedDb`
 * anyone on the developer's network could read every item or write a forged credential. Now its data is
 * reachable only with the local stack's own access key id, kept in a file only its owner can read.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListTablesCommand, PutItemCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsFor, DEFAULT_LOCAL_CREDENTIALS, randomCredentials } from "../../local/dynamo-credentials.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { type RunningDynamoDb, startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { ensureTable } from "../../local/table-setup.js";

const TABLE = "ats-access";
let dataDirectory: string;
let dynamo: RunningDynamoDb;

beforeAll(async () => {
  dataDirectory = join(mkdtempSync(join(tmpdir(), "ats-access-")), "dynamodb");
  dynamo = await startDynamoDbLocal({ dataDirectory });
  const owner = createLocalDynamoClient(dynamo.endpoint, dynamo.credentials);
  try {
    await ensureTable(owner, TABLE);
    await owner.send(
      new PutItemCommand({ TableName: TABLE, Item: { PK: { S: "APIKEY#secret" }, SK: { S: "APIKEY" } } }),
    );
  } finally {
    owner.destroy();
  }
}, 60_000);
afterAll(() => dynamo?.stop());

describe("the local DynamoDB's data", () => {
  it("is invisible to a client without the local credentials: no table, nothing to read or forge", async () => {
    for (const credentials of [DEFAULT_LOCAL_CREDENTIALS, randomCredentials()]) {
      const stranger = createLocalDynamoClient(dynamo.endpoint, credentials);
      try {
        const tables = await stranger.send(new ListTablesCommand({}));
        expect(tables.TableNames ?? []).toEqual([]);
        await expect(stranger.send(new ScanCommand({ TableName: TABLE }))).rejects.toThrow(/non-existent table/i);
      } finally {
        stranger.destroy();
      }
    }
    const owner = createLocalDynamoClient(dynamo.endpoint, dynamo.credentials);
    try {
      expect((await owner.send(new ScanCommand({ TableName: TABLE }))).Count).toBe(2);
    } finally {
      owner.destroy();
    }
  });

  it("is kept under a random key id in a file only its owner can read, the same on every start", () => {
    const file = statSync(join(dataDirectory, "credentials.json"));
    expect(file.mode & 0o777).toBe(0o600);
    expect(statSync(dataDirectory).mode & 0o777).toBe(0o700);
    expect(dynamo.credentials.accessKeyId).toMatch(/^ATSLOCAL[0-9A-F]{32}$/);
    expect(credentialsFor(dataDirectory)).toEqual(dynamo.credentials);
  });

  it("runs with -disableTelemetry and without -sharedDb: a local stack phones nowhere (issue 21)", () => {
    const commandLine = readFileSync(`/proc/${dynamo.pid}/cmdline`, "utf8").split("\0");
    expect(commandLine).toContain("-disableTelemetry");
    expect(commandLine).not.toContain("-sharedDb");
  });

  it("refuses a damaged credentials file with a clear message instead of quietly making a new, empty database", () => {
    const directory = mkdtempSync(join(tmpdir(), "ats-damaged-"));
    writeFileSync(join(directory, "credentials.json"), '{"accessKeyId":"ATSLOC');
    expect(() => credentialsFor(directory)).toThrow(/credentials\.json is damaged: it must hold/);
  });
});
