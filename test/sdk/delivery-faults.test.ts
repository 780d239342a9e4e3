/**
 * The SDK while the service blips: the local server (a real `npm start`
 * process) killed and restarted, and separately its DynamoDB Local stopped and
 * restarted, while an agent keeps recording. Every event must be stored
 * exactly once with exact counters; a session started during the outage is
 * created when the service is back, and its events follow it.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsFor } from "../../local/dynamo-credentials.js";
import { freePort, type RunningDynamoDb, startDynamoDbLocal } from "../../local/dynamodb-local.js";
import { AgentTracker, type AtsError } from "../../sdk/src/index.js";
import { exited, startTool, waitForFile } from "../support/processes.js";
import { rememberSecretsIn } from "../support/secrets-ledger.js";
import { expectStoredExactlyOnce, produceTraffic } from "./support/agent-traffic.js";

const dataDirectory = mkdtempSync(join(tmpdir(), "ats-sdk-faults-"));
const dynamoDirectory = join(dataDirectory, "dynamodb");
let dynamoPort: number;
let apiPort: number;
let dynamo: RunningDynamoDb;
let server: ChildProcess | undefined;
let apiUrl: string;
let apiKey: string;

async function startServer(): Promise<void> {
  rmSync(join(dataDirectory, "local.json"), { force: true });
  const credentials = credentialsFor(dynamoDirectory);
  const tool = startTool("local/start.ts", {
    DATA_DIR: dataDirectory,
    PORT: String(apiPort),
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    TABLE_NAME: "ats-sdk-faults",
    S3_ENDPOINT: "",
    PAYLOAD_BUCKET: "",
  });
  server = tool.child;
  const local = JSON.parse(await waitForFile(join(dataDirectory, "local.json"), 60_000, tool.child)) as {
    apiUrl: string;
    apiKey: string;
  };
  rememberSecretsIn(local.apiKey);
  apiUrl = local.apiUrl;
  apiKey = local.apiKey;
}

async function killServer(): Promise<void> {
  const child = server;
  if (child === undefined || child.exitCode !== null) return;
  child.kill("SIGKILL");
  await exited(child);
}

async function get(path: string) {
  const response = await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  dynamoPort = await freePort();
  apiPort = await freePort();
  dynamo = await startDynamoDbLocal({ dataDirectory: dynamoDirectory, port: dynamoPort });
  await startServer();
}, 120_000);

afterAll(async () => {
  await killServer();
  await dynamo?.stop();
  rmSync(dataDirectory, { recursive: true, force: true });
});

function tracker(errors: AtsError[]) {
  return new AgentTracker({ apiKey, baseUrl: apiUrl, onError: (error) => errors.push(error), flushIntervalMs: 200 });
}

describe("delivery through outages", () => {
  it("the server killed and restarted mid-stream: every event exactly once, sessions started while it was down are created", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const flowing = produceTraffic(ats, { sessions: 10, eventsPerRun: 30, gapMs: 100, agentName: "server-restart" });
    await pause(1_000);
    await killServer();
    await pause(1_000);
    const startedWhileDown = await ats.startSession({ name: "born offline", agentName: "server-restart", userId: "u" });
    startedWhileDown.toolCall({ toolName: "search", toolInput: { step: 0 }, estimatedCost: 0.25 });
    startedWhileDown.toolCall({ toolName: "fetch", toolInput: { step: 1 }, estimatedCost: 0.25 });
    await startedWhileDown.end();
    await startServer();
    const traffic = await flowing;
    const stats = await ats.shutdown({ timeoutMs: 120_000 });
    console.log(
      `server restart: recorded ${stats.eventsRecorded}, delivered ${stats.eventsDelivered}, failed ${stats.eventsFailed}, requests ${stats.requests}, retries ${stats.retries}`,
    );
    expect(errors).toEqual([]);
    expect(stats).toMatchObject({ eventsRecorded: 302, eventsDelivered: 302, eventsFailed: 0, eventsDropped: 0 });
    expect(stats.retries).toBeGreaterThan(0);
    await expectStoredExactlyOnce(get, traffic);
    await expectStoredExactlyOnce(get, { runs: [startedWhileDown], eventsPerRun: 2 });
  }, 180_000);

  it("DynamoDB Local stopped and restarted mid-stream: every event exactly once, counters exact", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const flowing = produceTraffic(ats, { sessions: 10, eventsPerRun: 30, gapMs: 100, agentName: "dynamodb-restart" });
    await pause(1_000);
    await dynamo.stop();
    await pause(1_500);
    dynamo = await startDynamoDbLocal({ dataDirectory: dynamoDirectory, port: dynamoPort });
    const traffic = await flowing;
    const stats = await ats.shutdown({ timeoutMs: 120_000 });
    console.log(
      `dynamodb restart: recorded ${stats.eventsRecorded}, delivered ${stats.eventsDelivered}, failed ${stats.eventsFailed}, requests ${stats.requests}, retries ${stats.retries}`,
    );
    expect(errors).toEqual([]);
    expect(stats).toMatchObject({ eventsRecorded: 300, eventsDelivered: 300, eventsFailed: 0, eventsDropped: 0 });
    expect(stats.retries).toBeGreaterThan(0);
    await expectStoredExactlyOnce(get, traffic);
  }, 180_000);
});
