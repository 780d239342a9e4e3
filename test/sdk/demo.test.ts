/**
 * `npm run demo`: the scripted agents' plan (pure, seeded) and the real script
 * as a child process against the local API: what it prints is what the read
 * API then shows, and a dead URL is one line and exit 1.
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { DEMO_AGENTS } from "../../scripts/demo/agents.js";
import { DEMO_USERS, DEMO_WINDOW_DAYS, planDemo } from "../../scripts/demo/scenario.js";
import { summarize } from "../../scripts/demo/summary.js";
import { call, createTestKey, readAllEvents, startTestApi, type TestKey } from "../support/fixtures.js";
import { runTool } from "../support/processes.js";

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

  it("exits 2 with the usage on a bad --sessions", async () => {
    const result = await runTool(DEMO, ["--sessions", "0"], { ATS_BASE_URL: api.url, ATS_API_KEY: owner.key });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--sessions must be a whole number from 1 to 5000");
    expect(result.stderr).toContain("Usage: npm run demo");
  });
});
