/**
 * Starts one in-memory DynamoDB Local (and one local S3 for offloaded payloads) for the whole run (free port on
 * 127.0.0.1), creates the table from the shared definition, and kills the
 * process by pid in teardown (and on exit, should the run crash).
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AttributeValue, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { TestProject } from "vitest/node";
import type { LocalCredentials } from "../../local/dynamo-credentials.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { startS3Local } from "../../local/s3-local.js";
import { ensureTable } from "../../local/table-setup.js";
import { readLedger } from "./secrets-ledger.js";

declare module "vitest" {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    dynamodbCredentials: LocalCredentials;
    tableName: string;
    secretsLedger: string;
    s3Endpoint: string;
    payloadBucket: string;
  }
}

const TABLE_NAME = "ats-test";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  const s3 = await startS3Local({ accessKeyIds: [dynamo.credentials.accessKeyId] });
  const client = createLocalDynamoClient(dynamo.endpoint, dynamo.credentials);
  try {
    await ensureTable(client, TABLE_NAME);
  } finally {
    client.destroy();
  }
  project.provide("dynamodbEndpoint", dynamo.endpoint);
  project.provide("dynamodbCredentials", dynamo.credentials);
  project.provide("tableName", TABLE_NAME);
  project.provide("s3Endpoint", s3.endpoint);
  project.provide("payloadBucket", s3.bucket);
  const ledger = join(tmpdir(), `ats-test-secrets-${process.pid}.txt`);
  rmSync(ledger, { force: true });
  project.provide("secretsLedger", ledger);
  return async () => {
    try {
      await assertNoSecretStored(dynamo.endpoint, dynamo.credentials, readLedger(ledger));
    } finally {
      rmSync(ledger, { force: true });
      await s3.stop();
      await dynamo.stop();
    }
  };
}

/** Scans the whole table once the suite is done: no key or token the tests handled may appear in any item. */
async function assertNoSecretStored(
  endpoint: string,
  credentials: LocalCredentials,
  secrets: readonly string[],
): Promise<void> {
  const client = createLocalDynamoClient(endpoint, credentials);
  let items = 0;
  const leaks = new Set<string>();
  try {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: TABLE_NAME, ExclusiveStartKey: startKey }));
      for (const item of page.Items ?? []) {
        items += 1;
        const text = JSON.stringify(item);
        for (const secret of secrets) if (text.includes(secret)) leaks.add(secret.slice(0, 12));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
  } finally {
    client.destroy();
  }
  if (leaks.size > 0) throw new Error(`Secrets found in the table after the suite: ${[...leaks].join(", ")}…`);
  console.log(`secret scan: ${secrets.length} keys/tokens checked against ${items} items, none stored`);
}
