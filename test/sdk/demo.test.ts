/**
 * `npm run demo`: the scripted agents' plan (pure, seeded) and the real script
 * as a child process against the local API: what it prints is what the read
 * API then shows, and a dead URL is one line and exit 1. `--alert` against a local.json as `npm start` writes it:
 * its monitor and destinations made once, its incident recorded, and the next evaluation firing the monitor.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertDeliveriesIdle } from "../../functions/alerts/delivery/delivery-queue.js";
import { evaluateMonitors } from "../../functions/alerts/monitor-evaluation.js";
import type { Monitor } from "../../functions/domain/monitor.js";
import { DEV_ORGANISATION } from "../../local/dev-organisation.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { verifyAtsSignature } from "../../scripts/alert-receiver.js";
import { DEMO_AGENTS } from "../../scripts/demo/agents.js";
import { ALERT_AGENT } from "../../scripts/demo/alert-demo.js";
import { receiverCommand } from "../../scripts/demo/alert-report.js";
import { demoMonitorDefinition, EVENTBRIDGE_DESTINATION, WEBHOOK_DESTINATION } from "../../scripts/demo/alert-setup.js";
import { DEMO_USERS, DEMO_WINDOW_DAYS, planDemo, planIncident } from "../../scripts/demo/scenario.js";
import { summarize } from "../../scripts/demo/summary.js";
import { call, createTestKey, createTestUser, readAllEvents, startTestApi, type TestKey } from "../support/fixtures.js";
import { runTool } from "../support/processes.js";

// --alert's webhook goes to a receiver on 127.0.0.1 (as `npm start` allows) and its EventBridge events to a file.
process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK = "true";
const eventsFile = join(mkdtempSync(join(tmpdir(), "ats-demo-alert-")), "notifications.jsonl");
process.env.SESSION_EVENTS_FILE = eventsFile;

const DEMO = "scripts/demo/run-demo.ts";
const DAY_MS = 24 * 60 * 60 * 1000;

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The number after `label` in the demo's output (thousands separators allowed). */
function printed(output: string, pattern: RegExp): number {
  const match = output.match(pattern);
  if (match?.[1] === undefined) throw new Error(`${pattern} not in the output:\n${output}`);
  return Number(match[1].replace(/,/g, ""));
}

describe("the demo's plan", () => {
  const nowMs = Date.parse("2026-11-22T12:00:00Z");

  it("is the same for the same seed and differs for another", () => {
    // Prepare / Act
    const first = planDemo({ sessions: 60, seed: "s1", nowMs });
    const again = planDemo({ sessions: 60, seed: "s1", nowMs });
    const other = planDemo({ sessions: 60, seed: "s2", nowMs });
    // Assess
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it("60 sessions: 3 agents, 12 users, ~15 % failed, several hundred events of every type, within the last 14 days", () => {
    const sessions = planDemo({ sessions: 60, seed: "ats-demo", nowMs });
    const summary = summarize(sessions);

    expect([...summary.sessionsByAgent.keys()].sort()).toEqual(DEMO_AGENTS.map((agent) => agent.name).sort());
    expect(summary.users).toBe(DEMO_USERS.length);
    expect(summary.failed).toBe(9);
    expect(summary.events).toBeGreaterThanOrEqual(300);
    for (const count of Object.values(summary.eventsByType)) expect(count).toBeGreaterThan(0);
    expect(summary.promptTokens).toBeGreaterThan(0);
    for (const session of sessions) {
      expect(session.startedAtMs).toBeGreaterThanOrEqual(nowMs - DEMO_WINDOW_DAYS * DAY_MS);
      expect(session.startedAtMs + session.durationMs).toBeLessThanOrEqual(nowMs);
      const lastStep = session.steps.at(-1);
      expect(lastStep?.atMs).toBeLessThanOrEqual(session.durationMs);
      expect(lastStep).toMatchObject({ kind: "state", to: session.outcome.status === "failed" ? "failed" : "done" });
    }
    const days = new Set(sessions.map((session) => new Date(session.startedAtMs).toISOString().slice(0, 10)));
    expect(days.size).toBeGreaterThanOrEqual(12);
  });

  it("--alert's incident: 6 runs of the agent ending in the last 2 minutes, 5 failed by its own errors", () => {
    const incident = planIncident({ agent: ALERT_AGENT, runs: 6, failing: 5, seed: "ats-demo", nowMs });
    const ownMessages = ALERT_AGENT.tools.flatMap((tool) =>
      tool.errors.map((error) => `${tool.name} failed: ${error}`),
    );

    expect(incident.map((session) => session.agentName)).toEqual(Array(6).fill(ALERT_AGENT.name));
    const failed = incident.flatMap((session) => (session.outcome.status === "failed" ? [session.outcome] : []));
    expect(failed).toHaveLength(5);
    for (const { failureReason } of failed) {
      expect([...ownMessages, ...ALERT_AGENT.failureReasons]).toContain(failureReason);
    }
    for (const session of incident) {
      const endMs = session.startedAtMs + session.durationMs;
      expect(endMs).toBeLessThan(nowMs);
      expect(endMs).toBeGreaterThanOrEqual(nowMs - 2 * 60_000);
    }
  });
});

describe("--alert's receiver line", () => {
  it("names PORT only for a loopback URL on another port than the receiver's 8787", () => {
    expect(receiverCommand("http://127.0.0.1:8787/", "whsec_x")).toBe(
      "ATS_WEBHOOK_SECRET=whsec_x npm run alerts:receiver",
    );
    expect(receiverCommand("http://localhost:9000/hook", "whsec_x")).toBe(
      "PORT=9000 ATS_WEBHOOK_SECRET=whsec_x npm run alerts:receiver",
    );
    expect(receiverCommand("https://hooks.example.com/ats", "whsec_x")).toBe(
      "ATS_WEBHOOK_SECRET=whsec_x npm run alerts:receiver",
    );
  });
});

describe("npm run demo against the local API", () => {
  let api: LocalApi;
  let owner: TestKey;

  beforeAll(async () => {
    api = await startTestApi();
    owner = await createTestKey();
  });
  afterAll(() => api.close());

  it("records 12 sessions and the Python agent's 3 that the read API shows as printed: spread over days, failures, every event type", async () => {
    // Act
    const startedMs = Date.now();
    const result = await runTool(DEMO, ["--sessions", "12"], { ATS_BASE_URL: api.url, ATS_API_KEY: owner.key });
    const output = result.stdout;

    // Assess: the run
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // The 12 scripted sessions of the TypeScript agents and the 3 of the Python agent (scripts/demo/python_agent.py).
    expect(output).toMatch(/^Recorded 15 sessions \(\d+ failed\) with [\d,]+ events in [\d.]+ s → /);
    expect(output).toMatch(
      /Python {4}docs-bot-py: 3 sessions \(1 failed\), \d+ events through the Python client — \d+ delivered · 0 failed · 0 dropped/,
    );
    expect(output).toMatch(/Events {4}[\d,]+ delivered · 0 failed · 0 dropped/);
    expect(output).toMatch(/Wire {6}[\d.]+ KiB sent with gzip, [\d.]+ KiB without/);
    expect(output).toContain("KEY=$ATS_API_KEY");
    expect(output).not.toContain(owner.key);

    // Assess: the sessions, through the read API
    const list = await call(api, "GET", "/api/sdk/sessions?limit=100", { key: owner.key });
    expect(list.status).toBe(200);
    const sessions = list.body.items as Record<string, unknown>[];
    expect(sessions).toHaveLength(15);
    const agentNames = new Set([...DEMO_AGENTS.map((agent) => agent.name), "docs-bot-py"]);
    for (const session of sessions) {
      expect(agentNames.has(session.agentName as string)).toBe(true);
      const createdMs = Date.parse(session.createdAt as string);
      expect(createdMs).toBeGreaterThanOrEqual(startedMs - DEMO_WINDOW_DAYS * DAY_MS);
      expect(createdMs).toBeLessThanOrEqual(Date.now());
      expect(session.status).toMatch(/^(completed|failed)$/);
    }
    const days = new Set(sessions.map((session) => (session.createdAt as string).slice(0, 10)));
    expect(days.size).toBeGreaterThanOrEqual(5);
    const failed = sessions.filter((session) => session.status === "failed");
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const session of failed) expect(session.failureReason).toEqual(expect.any(String));

    // Assess: the printed totals are what the service stored
    const sum = (field: string) => sessions.reduce((total, session) => total + Number(session[field] ?? 0), 0);
    expect(printed(output, /\((\d+) failed\)/)).toBe(failed.length);
    expect(printed(output, /with ([\d,]+) events/)).toBe(sum("eventCount"));
    expect(printed(output, /Tokens {4}([\d,]+)/)).toBe(sum("totalTokens"));
    expect(printed(output, /Cost {6}\$([\d.]+)/)).toBeCloseTo(sum("estimatedCost"), 4);

    // Assess: every event type, each at its scripted time within its session
    const types = new Set<unknown>();
    for (const session of sessions) {
      const { events } = await readAllEvents(api, owner.key, session.id as string);
      expect(events).toHaveLength(session.eventCount as number);
      const createdMs = Date.parse(session.createdAt as string);
      for (const event of events) {
        types.add(event.eventType);
        const at = Date.parse(event.occurredAt as string);
        expect(at).toBeGreaterThanOrEqual(createdMs);
        expect(at).toBeLessThanOrEqual(createdMs + (session.durationMs as number));
      }
    }
    expect([...types].sort()).toEqual(["error", "llm_decision", "state_change", "tool_call"]);

    // Assess: the printed curl command shows one of the failed runs
    const failedId = output.match(/sessions\/(ses_\w+)\/events/)?.[1];
    expect(failed.map((session) => session.id)).toContain(failedId);
  }, 120_000);

  it("exits 1 with one line, no stack trace, when nothing answers at the URL", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;

    const result = await runTool(DEMO, [], { ATS_BASE_URL: url, ATS_API_KEY: owner.key });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual([
      `The service at ${url} is not answering (ECONNREFUSED): start the local stack with \`npm start\` (in another terminal) and run \`npm run demo\` again.`,
    ]);
  });

  it("exits 1 with one line when there is no local stack (no local.json, no ATS_BASE_URL)", async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), "ats-demo-"));

    const result = await runTool(DEMO, [], { DATA_DIR: dataDirectory, ATS_BASE_URL: "", ATS_API_KEY: "" });

    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      `No local stack found: ${join(dataDirectory, "local.json")} is missing or incomplete. Start one with \`npm start\` (in another terminal); if it runs with a DATA_DIR of its own, give this command the same DATA_DIR=<dir>, or export ATS_BASE_URL and ATS_API_KEY as the banner of \`npm start\` shows.`,
    ]);
  });

  it("exits 1 with one line when the key is refused", async () => {
    const result = await runTool(DEMO, [], {
      ATS_BASE_URL: api.url,
      ATS_API_KEY: "ats_live_notarealkeynotarealkeynotarealkey12",
    });

    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^The service at ${api.url} answered 401 — the API key was refused`));
  });

  it("--alert exits 1 with one line, before recording anything, when ATS_BASE_URL is not the local stack", async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), "ats-demo-"));

    const result = await runTool(DEMO, ["--alert"], {
      DATA_DIR: dataDirectory,
      ATS_BASE_URL: api.url,
      ATS_API_KEY: owner.key,
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual([
      `--alert works against the local stack (npm start) only: at ${api.url}, make monitors and destinations in the console there (its Alerts page).`,
    ]);
  });

  it("exits 2 with the usage on a bad --sessions", async () => {
    const result = await runTool(DEMO, ["--sessions", "0"], { ATS_BASE_URL: api.url, ATS_API_KEY: owner.key });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--sessions must be a whole number from 1 to 5000");
    expect(result.stderr).toContain("Usage: npm run demo");
  });

  it("--alert three times: one monitor and one of each destination (a deleted webhook made again), every incident recorded; the next evaluation fires it to the file and a signed webhook", async () => {
    // Prepare: local.json as `npm start` writes it for the dev organisation, and a receiver for the webhook.
    const dataDirectory = mkdtempSync(join(tmpdir(), "ats-demo-alert-"));
    const devUser = await createTestUser(api, { orgId: DEV_ORGANISATION, role: "admin" });
    const devKey = await createTestKey({ orgId: DEV_ORGANISATION });
    const localJson = {
      apiUrl: api.url,
      apiKey: devKey.key,
      userToken: devUser.token,
      dynamodbEndpoint: "",
      tableName: "",
    };
    writeFileSync(join(dataDirectory, "local.json"), JSON.stringify(localJson));
    const received: { signature: string; body: string }[] = [];
    const receiver = createHttpServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        received.push({ signature: String(request.headers["ats-signature"]), body: Buffer.concat(chunks).toString() });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const port = (receiver.address() as AddressInfo).port;
    const env = {
      DATA_DIR: dataDirectory,
      ATS_BASE_URL: "",
      ATS_API_KEY: "",
      ATS_DEMO_PYTHON: "ats-demo-no-python",
      ATS_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
    };
    const consoleAccess = { key: devUser.token, headers: { "x-organization-id": DEV_ORGANISATION } };
    const startedMs = Date.now();

    try {
      // Act: the demo twice; the webhook deleted (the monitor keeps naming it); the demo again.
      const args = ["--sessions", "1", "--quiet", "--alert"];
      const first = await runTool(DEMO, args, env);
      const second = await runTool(DEMO, args, env);
      const made = await call(api, "GET", "/api/alerts/destinations", { ...consoleAccess, settle: false });
      const webhook = (made.body.destinations as { id: string; kind: string }[]).find(({ kind }) => kind === "webhook");
      const deleted = await call(api, "DELETE", `/api/alerts/destinations/${webhook?.id}`, consoleAccess);
      expect(deleted.status).toBe(204);
      const third = await runTool(DEMO, args, env);

      // Assess: the runs; a new webhook's secret printed once, with the receiver's command line.
      expect([first.stderr, second.stderr, third.stderr]).toEqual(["", "", ""]);
      expect([first.code, second.code, third.code]).toEqual([0, 0, 0]);
      const secretOf = (output: string) =>
        output.match(new RegExp(`PORT=${port} ATS_WEBHOOK_SECRET=(\\S+) npm run alerts:receiver`))?.[1];
      expect(secretOf(first.stdout)).toMatch(/^whsec_/);
      expect(second.stdout).toContain(`"${WEBHOOK_DESTINATION}" was made`);
      expect(second.stdout).not.toContain(String(secretOf(first.stdout)));
      expect(second.stdout).toContain(`tail -f ${eventsFile} | grep ats.monitor`);
      const secret = secretOf(third.stdout);
      expect(secret).toMatch(/^whsec_/);

      // Assess: one monitor and one of each destination, the monitor naming both (not the deleted one).
      const destinations = await call(api, "GET", "/api/alerts/destinations", { ...consoleAccess, settle: false });
      const names = (destinations.body.destinations as { name: string; id: string }[]).map(({ name }) => name);
      expect(names.sort()).toEqual([EVENTBRIDGE_DESTINATION, WEBHOOK_DESTINATION]);
      const monitors = await call(api, "GET", "/api/alerts/monitors", { ...consoleAccess, settle: false });
      const demoMonitors = (monitors.body.monitors as Monitor[]).filter(({ name }) => name.startsWith("Demo: "));
      expect(demoMonitors).toHaveLength(1);
      const [monitor] = demoMonitors as [Monitor];
      const ids = (destinations.body.destinations as { id: string }[]).map(({ id }) => id);
      const { destinationIds, ...definition } = demoMonitorDefinition(ALERT_AGENT.name, ids);
      expect(monitor).toMatchObject(definition);
      expect([...monitor.destinationIds].sort()).toEqual([...destinationIds].sort());

      // Assess: the incidents' runs (in the last minutes; the usual demo's end 15 minutes ago or more), 15 failed.
      const list = await call(api, "GET", `/api/sdk/sessions?agentName=${ALERT_AGENT.name}&limit=100`, {
        key: devKey.key,
      });
      const incident = (list.body.items as { createdAt: string; status: string }[]).filter(
        (session) => Date.parse(session.createdAt) >= startedMs - 3 * 60_000,
      );
      expect(incident).toHaveLength(18);
      expect(incident.filter(({ status }) => status === "failed")).toHaveLength(15);

      // Act: the evaluation of the next minute, as `npm start` runs it.
      await evaluateMonitors(new Date(Date.now() + 60_000), { orgId: DEV_ORGANISATION });
      await alertDeliveriesIdle();

      // Assess: in alert; notified once to the signed webhook and the notifications file.
      const after = await call(api, "GET", `/api/alerts/monitors/${monitor.id}`, { ...consoleAccess, settle: false });
      expect(after.body.state).toMatchObject({ status: "alert" });
      expect(received).toHaveLength(1);
      expect(verifyAtsSignature(received[0]?.signature ?? "", received[0]?.body ?? "", String(secret))).toBe(true);
      expect(JSON.parse(received[0]?.body ?? "{}")).toMatchObject({ type: "monitor.state_changed", state: "alert" });
      const fileEvents = readFileSync(eventsFile, "utf8").trim().split("\n");
      expect(fileEvents.filter((line) => line.includes(monitor.id))).toHaveLength(1);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 60_000);
});
