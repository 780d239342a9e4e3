/** Fire-and-forget delivery against the real local stack, and a service that is not there at all. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../local/dynamodb-local.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { AgentTracker, type AtsError } from "../../sdk/src/index.js";
import { call, createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";
import { expectStoredExactlyOnce, produceTraffic } from "./support/agent-traffic.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

describe("delivery", () => {
  it("300 fire-and-forget events then shutdown(): every one stored exactly once, counters exact", async () => {
    const errors: AtsError[] = [];
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error) });
    const traffic = await produceTraffic(ats, {
      sessions: 6,
      eventsPerRun: 50,
      gapMs: 0,
      agentName: "fire-and-forget",
    });
    const stats = await ats.shutdown();
    console.log(
      `fire-and-forget: recorded ${stats.eventsRecorded}, delivered ${stats.eventsDelivered}, requests ${stats.requests}`,
    );
    expect(errors).toEqual([]);
    expect(stats).toMatchObject({
      eventsRecorded: 300,
      eventsDelivered: 300,
      eventsFailed: 0,
      eventsDropped: 0,
      queued: 0,
    });
    await expectStoredExactlyOnce((path) => call(api, "GET", path, { key: owner.key }), traffic);
  });

  it("a dead base URL: nothing throws into the agent, shutdown returns within its bound, onError says what was lost", async () => {
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    const errors: AtsError[] = [];
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: deadUrl, onError: (error) => errors.push(error) });
    const outcome = await ats.trace({ name: "offline", agentName: "dead-url", userId: "u" }, async (run) => {
      for (let i = 0; i < 20; i++) run.toolCall({ toolName: "t", toolInput: { i } });
      run.decision({ reasoning: "carry on", confidence: 0.9 });
      return "agent finished";
    });
    expect(outcome).toBe("agent finished");
    const started = Date.now();
    const stats = await ats.shutdown({ timeoutMs: 2_000 });
    const took = Date.now() - started;
    console.log(
      `dead URL: recorded ${stats.eventsRecorded}, delivered ${stats.eventsDelivered}, shutdown ${took} ms, ${errors.length} reports`,
    );
    expect(took).toBeLessThan(3_000);
    expect(stats).toMatchObject({ eventsRecorded: 21, eventsDelivered: 0, sessionsCreated: 0 });
    expect(stats.eventsFailed).toBe(21);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.reduce((sum, error) => sum + error.lostEvents, 0)).toBe(21);
    expect(errors.every((error) => ["shutdown", "session_not_created"].includes(error.code))).toBe(true);
  });
});
