/**
 * A real `npm start` for a browser test: `local/start.ts` as a child process
 * with its own DATA_DIR and port, on the run's DynamoDB Local (a table of its
 * own) and local S3, so the console is built and served and `dev@localhost`
 * owns the `dev` organisation. Stopped by its pid, its DATA_DIR removed.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { exited, startTool, waitForFile } from "../../support/processes.js";
import { rememberSecretsIn } from "../../support/secrets-ledger.js";

/** `$DATA_DIR/local.json` as `npm start` writes it. */
export interface LocalJson {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly userToken: string;
  readonly dynamodbEndpoint: string;
  readonly tableName: string;
}

export interface Stack {
  /** The console and the API: `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly local: LocalJson;
  readonly dataDirectory: string;
  /** Everything the process printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starting includes building the console when web/dist is stale (a cold Vite build). */
const START_TIMEOUT_MS = 240_000;

/** How long the banner may follow local.json (written just before it). */
const BANNER_TIMEOUT_MS = 10_000;

/**
 * Waits for `npm start`'s banner: it writes local.json, then prints the banner, so right after the file appears the
 * "Console:" line may not have been read yet (a check then failed a run whose console was served).
 */
async function bannerPrinted(output: () => string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + BANNER_TIMEOUT_MS;
  while (!output().includes("  Console:   ") && child.exitCode === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startStack(): Promise<Stack> {
  const dataDirectory = mkdtempSync(join(tmpdir(), "ats-e2e-"));
  const credentials = inject("dynamodbCredentials");
  const tool = startTool("local/start.ts", {
    DATA_DIR: dataDirectory,
    PORT: "0",
    DYNAMODB_ENDPOINT: inject("dynamodbEndpoint"),
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    TABLE_NAME: `ats-e2e-${randomUUID().slice(0, 8)}`,
    ...inject("s3Environment"),
  });
  const child: ChildProcess = tool.child;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited(child);
    }
    rmSync(dataDirectory, { recursive: true, force: true });
  };
  try {
    const local = JSON.parse(
      await waitForFile(join(dataDirectory, "local.json"), START_TIMEOUT_MS, child),
    ) as LocalJson;
    rememberSecretsIn(local.apiKey);
    rememberSecretsIn(local.userToken);
    await bannerPrinted(tool.output, child);
    if (!tool.output().includes("Console:   http://")) {
      throw new Error(`npm start serves no console:\n${tool.output()}`);
    }
    return { url: local.apiUrl, local, dataDirectory, output: tool.output, stop };
  } catch (error) {
    await stop();
    throw new Error(`npm start did not come up: ${(error as Error).message}\n${tool.output()}`, { cause: error });
  }
}
