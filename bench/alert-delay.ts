/**
 * `npm run bench:alerts`: the delay from a breaching session's end to its alert's webhook, end to end on the local
 * stack exactly as `npm start` runs it (its own DATA_DIR: DynamoDB Local, the stream consumer polling every 250 ms,
 * the monitors evaluated every 60 s, deliveries in process), measured from outside by the client that ends the
 * session and the receiver the webhook reaches.
 *
 * MONITORS monitors (failure rate above 50 % over 5 minutes, at least one session) each watch their own agent; one
 * failed session per agent ends at staggered moments across the evaluation minute, so the samples cover its phases.
 * Writes bench/alert-delay-results.md and .json. Its own script, not a phase of `npm run bench`: it waits on the
 * one-minute schedule (about two minutes of wall time), and the main bench is already past its own time bound.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MONITORS = Number(process.env.BENCH_ALERT_MONITORS ?? 4);
const STAGGER_MS = Number(process.env.BENCH_ALERT_STAGGER_MS ?? 15_000);
const WAIT_MS = 200_000;

interface LocalJson {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly userToken: string;
}

const arrivals = new Map<string, number>();
const receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const arrivedAt = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { state?: string; monitor?: { name?: string } };
    const name = body.monitor?.name;
    if (body.state === "alert" && name !== undefined && !arrivals.has(name)) arrivals.set(name, arrivedAt);
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dataDirectory = mkdtempSync(join(tmpdir(), "ats-bench-alerts-"));
// `npm start` itself, in its own DATA_DIR and on a free port.
const stack = spawn(process.execPath, ["--import", "tsx", "local/start.ts"], {
  cwd: new URL("..", import.meta.url),
  env: { ...process.env, DATA_DIR: dataDirectory, PORT: "0", DYNAMODB_ENDPOINT: "", TABLE_NAME: "" },
  stdio: ["ignore", "pipe", "pipe"],
});
let stackOutput = "";
stack.stdout.on("data", (chunk: Buffer) => {
  stackOutput += chunk.toString();
});
stack.stderr.on("data", (chunk: Buffer) => {
  stackOutput += chunk.toString();
});

async function localJson(): Promise<LocalJson> {
  const path = join(dataDirectory, "local.json");
  const deadline = Date.now() + 120_000;
  while (!existsSync(path)) {
    if (stack.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${stackOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return JSON.parse(readFileSync(path, "utf8")) as LocalJson;
}

try {
  const local = await localJson();
  const asUser = { authorization: `Bearer ${local.userToken}`, "x-organization-id": "dev", "x-environment": "live" };
  const asKey = { authorization: `Bearer ${local.apiKey}` };
  const send = async (method: string, path: string, headers: Record<string, string>, body: unknown) => {
    const response = await fetch(`${local.apiUrl}${path}`, {
      method,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  const hook = await send("POST", "/api/alerts/destinations", asUser, {
    name: "bench receiver",
    kind: "webhook",
    url: receiverUrl,
  });
  const names = Array.from({ length: MONITORS }, (_, index) => `delay-${index + 1}`);
  for (const name of names) {
    await send("POST", "/api/alerts/monitors", asUser, {
      name,
      enabled: true,
      metric: "failure_rate",
      filters: { agent: `bench-${name}` },
      windowMinutes: 5,
      comparison: "above",
      alertThreshold: 50,
      minSessions: 1,
      noData: "keep",
      renotifyMinutes: 0,
      notifyOnRecovery: false,
      destinationIds: [hook.id],
    });
  }

  // Act: one failed session per monitor's agent, STAGGER_MS apart; its end is when its PATCH is answered.
  const ends = new Map<string, number>();
  for (const name of names) {
    const session = await send("POST", "/api/sdk/sessions", asKey, {
      name: "checkout",
      agentName: `bench-${name}`,
      userId: "bench-user",
    });
    await send("PATCH", `/api/sdk/sessions/${String(session.id)}`, asKey, { status: "failed" });
    ends.set(name, Date.now());
    if (name !== names.at(-1)) await new Promise((resolve) => setTimeout(resolve, STAGGER_MS));
  }
  const deadline = Date.now() + WAIT_MS;
  while (arrivals.size < names.length && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 250));

  // Report
  const samples = names.map((name) => {
    const end = ends.get(name) ?? 0;
    const arrived = arrivals.get(name);
    return {
      monitor: name,
      sessionEndedAt: new Date(end).toISOString(),
      secondOfMinute: new Date(end).getUTCSeconds(),
      delayMs: arrived === undefined ? null : arrived - end,
    };
  });
  const delays = samples.flatMap((sample) => (sample.delayMs === null ? [] : [sample.delayMs])).sort((a, b) => a - b);
  const verdict = delays.length === names.length && (delays.at(-1) ?? Infinity) <= 120_000 ? "met" : "missed";
  const summary = {
    at: new Date().toISOString(),
    target: "≤ 120 s from the breaching session's end to the webhook",
    monitors: names.length,
    arrived: delays.length,
    minMs: delays[0] ?? null,
    medianMs: delays.length === 0 ? null : (delays[Math.floor((delays.length - 1) / 2)] ?? null),
    maxMs: delays.at(-1) ?? null,
    verdict,
    samples,
  };
  const seconds = (ms: number | null) => (ms === null ? "–" : `${(ms / 1000).toFixed(1)} s`);
  const markdown = [
    "# Alert delay, end to end (`npm run bench:alerts`)",
    "",
    `${summary.at}; the local stack as \`npm start\` runs it (stream polled every 250 ms, monitors evaluated every`,
    "60 s, deliveries in process); per monitor one failed session of its agent, ended at staggered moments; the delay",
    "is from the answer to the session's PATCH to the webhook's arrival at a receiver on 127.0.0.1.",
    "",
    "| monitor | session ended (UTC) | second of the minute | delay |",
    "| --- | --- | ---: | ---: |",
    ...samples.map(
      (sample) =>
        `| ${sample.monitor} | ${sample.sessionEndedAt} | ${sample.secondOfMinute} | ${seconds(sample.delayMs)} |`,
    ),
    "",
    `Arrived ${delays.length} of ${names.length}; min ${seconds(summary.minMs)}, median ${seconds(summary.medianMs)}, max ${seconds(summary.maxMs)}: **${verdict}** (${summary.target}).`,
    "",
    "On AWS the stream consumer's batching window (lib/constructs/stream-counting.ts) is added to the local 250 ms",
    "poll; the schedule and the evaluation are the same.",
    "",
  ].join("\n");
  writeFileSync(new URL("./alert-delay-results.md", import.meta.url), markdown);
  writeFileSync(new URL("./alert-delay-results.json", import.meta.url), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(markdown);
  if (verdict !== "met") process.exitCode = 1;
} finally {
  if (stack.exitCode === null) {
    const exit = new Promise((resolve) => stack.once("exit", resolve));
    stack.kill("SIGTERM");
    await exit;
  }
  receiver.close();
  rmSync(dataDirectory, { recursive: true, force: true });
}
