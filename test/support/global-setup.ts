/**
 * Starts one in-memory DynamoDB Local (and one local S3 for offloaded payloads) for the whole run (free port on
 * 127.0.0.1), creates the table from the shared definition, starts the run's one stream consumer
 * (shared-stream-consumer.ts), and kills the processes by pid in teardown (and on exit, should the run crash).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AttributeValue, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { TestProject } from "vitest/node";
import type { LocalCredentials } from "../../local/dynamo-credentials.js";
import { createLocalDynamoClient, LOCAL_REGION } from "../../local/dynamo-endpoint.js";
import { startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { s3Environment, startS3Local } from "../../local/s3-local.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
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
    /** S3_ENDPOINT, PAYLOAD_BUCKET and the local S3's own credential (S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY). */
    s3Environment: Record<string, string>;
    /** POST here: resolves (204) once the run's stream consumer has counted every record written before. */
    streamDrainUrl: string;
    /** Where the run's stream consumer appends session notifications (JSON lines). */
    sessionEventsFile: string;
  }
}

const TABLE_NAME = "ats-test";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  const s3 = await startS3Local();
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
  project.provide("s3Environment", s3Environment(s3));
  const ledger = join(tmpdir(), `ats-test-secrets-${process.pid}.txt`);
  rmSync(ledger, { force: true });
  project.provide("secretsLedger", ledger);
  const sessionEventsFile = join(tmpdir(), `ats-test-session-notifications-${process.pid}.jsonl`);
  rmSync(sessionEventsFile, { force: true });
  const consumer = await startSharedStreamConsumer({
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TABLE_NAME,
    AWS_REGION: process.env.AWS_REGION ?? LOCAL_REGION,
    AWS_ACCESS_KEY_ID: dynamo.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: dynamo.credentials.secretAccessKey,
    ...s3Environment(s3),
    SESSION_EVENTS_FILE: sessionEventsFile,
    LOG_LEVEL: "WARN",
  });
  project.provide("streamDrainUrl", consumer.drainUrl);
  project.provide("sessionEventsFile", sessionEventsFile);
  return async () => {
    try {
      await assertNoSecretStored(dynamo.endpoint, dynamo.credentials, readLedger(ledger));
    } finally {
      await consumer.stop();
      rmSync(ledger, { force: true });
      rmSync(sessionEventsFile, { force: true });
      await s3.stop();
      await dynamo.stop();
    }
  };
}

/** Starts test/support/shared-stream-consumer.ts as a child process; resolves once it serves its drain URL. */
async function startSharedStreamConsumer(
  env: Record<string, string>,
): Promise<{ drainUrl: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", join(REPOSITORY_ROOT, "test/support/shared-stream-consumer.ts")],
    { cwd: REPOSITORY_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const drainUrl = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => reject(new Error("the shared stream consumer did not start within 60 s")), 60_000);
    child.once("exit", (code) => reject(new Error(`the shared stream consumer exited with ${code} before starting`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /\{"drainUrl":"([^"]+)"\}/.exec(buffered);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
  });
  return {
    drainUrl,
    stop: async () => {
      process.removeListener("exit", killOnExit);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
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
