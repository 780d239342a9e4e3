/**
 * A local stack of real processes for fault tests: a DEDICATED DynamoDB Local (its own port, a data directory on
 * tmpfs where there is one) and `local/start.ts` as a child on it, each of which a test may kill or stop and start
 * again on the same port and data directory. `close()` kills both by pid, also after a failure.
 */
import type { ChildProcess } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalCredentials } from "../../local/dynamo-credentials.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { freePort, type RunningDynamoDb, startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { ensureTable } from "../../local/table-setup.js";
import { isAlive, startTool, waitForFile } from "./processes.js";
import { rememberSecretsIn } from "./secrets-ledger.js";
import type { StackAccess } from "./stack-reads.js";

export interface ProcessStack {
  /** The API's current base URL and key (a restart changes the URL: read them on every attempt). */
  readonly access: { apiUrl: string; apiKey: string } & StackAccess;
  readonly tableName: string;
  /** `http://127.0.0.1:<port>` of the stack's DynamoDB Local (the same across its restarts). */
  readonly dynamoEndpoint: string;
  /** The credentials the stack's DynamoDB Local answers to. */
  credentials(): LocalCredentials;
  startDynamo(): Promise<void>;
  stopDynamo(): Promise<void>;
  /** Starts local/start.ts; resolves once it has written a fresh local.json (it listens then). */
  startApi(): Promise<void>;
  /** Sends `signal` to the API process (SIGKILL after 5 s) and waits for it to exit. */
  killApi(signal: NodeJS.Signals): Promise<void>;
  close(): Promise<void>;
}

/**
 * The data directory's root: tmpfs (/dev/shm) where there is one — DynamoDB Local then persists across a
 * restart without paying for a disk sync per commit (3–4× faster here) — else the system temp directory.
 */
function temporaryRoot(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts DynamoDB Local with the table and `local/start.ts` on it (`env` added to the API's environment). */
export async function openProcessStack(options: {
  readonly prefix: string;
  readonly tableName: string;
  readonly env?: Readonly<Record<string, string>>;
}): Promise<ProcessStack> {
  const directory = mkdtempSync(join(temporaryRoot(), options.prefix));
  const dynamoPort = await freePort();
  const dynamoEndpoint = `http://127.0.0.1:${dynamoPort}`;
  const localJson = join(directory, "local.json");
  const access = { apiUrl: "", apiKey: "" };
  let dynamo: RunningDynamoDb | undefined;
  let api: ChildProcess | undefined;

  function credentials(): LocalCredentials {
    if (dynamo === undefined) throw new Error("DynamoDB Local is not running");
    return dynamo.credentials;
  }

  async function startDynamo(): Promise<void> {
    dynamo = await startDynamoDbLocal({ dataDirectory: join(directory, "dynamodb"), port: dynamoPort });
  }

  async function stopDynamo(): Promise<void> {
    const running = dynamo;
    dynamo = undefined;
    await running?.stop();
  }

  async function startApi(): Promise<void> {
    const since = Date.now();
    const child = startTool("local/start.ts", {
      DATA_DIR: directory,
      PORT: "0",
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      // Its database is the one of these credentials (local/dynamo-credentials.ts).
      AWS_ACCESS_KEY_ID: credentials().accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials().secretAccessKey,
      TABLE_NAME: options.tableName,
      // The runs are bounded anyway; the default per-key limit would only add 429s to retry.
      RATE_LIMIT_PER_MINUTE: "1000000",
      ...options.env,
    }).child;
    api = child;
    // local.json is (re)written once the API listens; after a restart wait for the new one.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const text = await waitForFile(localJson, 60_000, child);
      if (statSync(localJson).mtimeMs >= since) {
        rememberSecretsIn(text);
        const local = JSON.parse(text) as { apiUrl: string; apiKey: string };
        access.apiUrl = local.apiUrl;
        access.apiKey = local.apiKey;
        return;
      }
      if (Date.now() > deadline) throw new Error("local/start.ts did not rewrite local.json within 60 s");
      if (child.exitCode !== null) throw new Error(`local/start.ts exited with ${child.exitCode}`);
      await sleep(100);
    }
  }

  async function killApi(signal: NodeJS.Signals): Promise<void> {
    const running = api;
    api = undefined;
    if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    process.kill(running.pid, signal);
    const timer = setTimeout(() => {
      if (running.pid !== undefined && isAlive(running.pid)) process.kill(running.pid, "SIGKILL");
    }, 5_000);
    await exited;
    clearTimeout(timer);
  }

  async function close(): Promise<void> {
    try {
      await killApi("SIGKILL");
    } finally {
      try {
        await stopDynamo();
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }
  }

  try {
    await startDynamo();
    const client = createLocalDynamoClient(dynamoEndpoint, credentials());
    try {
      await ensureTable(client, options.tableName);
    } finally {
      client.destroy();
    }
    await startApi();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    access,
    tableName: options.tableName,
    dynamoEndpoint,
    credentials,
    startDynamo,
    stopDynamo,
    startApi,
    killApi,
    close,
  };
}
