/**
 * Issue 11, defect 10: events racing each other on an ended session were refused (60 concurrent late
 * `state_change` events → 51 answered 409 "kept changing"). Every valid event is recorded now, and the
 * session's counters and the rollups stay exact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { bruteForceStats, comparable } from "../support/brute-force-stats.js";
import {
  call,
  createTestKey,
  createTestSession,
  itemsOfOrganisation,
  startTestApi,
  storedSession,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const TOOLS = ["search", "fetch", "constructor", "toString"] as const;

/** The i-th of a mix of late events: tool calls and errors of four tools, state changes; 0.25 USD each (exact in binary). */
function lateEvent(sessionId: string, index: number): Record<string, unknown> {
  const kind = index % 3;
  if (kind === 2) return { sessionId, eventType: "state_change", estimatedCost: 0.25 };
  return {
    sessionId,
    eventType: kind === 0 ? "tool_call" : "error",
    toolName: TOOLS[index % TOOLS.length],
    estimatedCost: 0.25,
  };
}

async function endedSession(owner: TestKey, agentName: string): Promise<string> {
  const sessionId = await createTestSession(api, owner.key, { name: "late", agentName, userId: "late-user" });
  const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
    key: owner.key,
    body: { status: "completed", success: true, durationMs: 1_200 },
  });
  expect(ended.status).toBe(200);
  return sessionId;
}

/** The agent's stats from the API next to the same stats recomputed from the stored items. */
async function statsAgainstRecount(owner: TestKey, agentName: string) {
  const items = await itemsOfOrganisation(owner.orgId);
  const sessions = items.filter((item) => item.entity === "session");
  const events = items.filter((item) => item.entity === "event");
  const response = await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: owner.key });
  expect(response.status).toBe(200);
  return {
    served: comparable(response.body as never),
    recount: bruteForceStats(sessions, events, (session) => session.agentName === agentName),
  };
}

describe("late events racing each other", () => {
  it("60 concurrent late events on a completed session are all 201, counted exactly", async () => {
    const owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
    const sessionId = await endedSession(owner, "late-agent");

    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        call(api, "POST", "/api/sdk/events", { key: owner.key, body: lateEvent(sessionId, index) }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 60 }, () => 201));
    const session = await storedSession(sessionId);
    expect(session?.eventCount).toBe(60);
    expect(session?.eventCost).toBe(15);
    const { served, recount } = await statsAgainstRecount(owner, "late-agent");
    expect(served).toEqual(recount);
    expect((served.totals as Record<string, unknown>).events).toBe(60);
  });

  it("late batches and single events racing on an ended session are all stored, counted exactly", async () => {
    const owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
    const sessionId = await endedSession(owner, "late-batch-agent");

    const batches = Array.from({ length: 8 }, (_, batch) =>
      call(api, "POST", "/api/sdk/events/batch", {
        key: owner.key,
        body: { events: Array.from({ length: 6 }, (_, index) => lateEvent(sessionId, batch * 6 + index)) },
      }),
    );
    const singles = Array.from({ length: 20 }, (_, index) =>
      call(api, "POST", "/api/sdk/events", { key: owner.key, body: lateEvent(sessionId, 100 + index) }),
    );
    const [batchResponses, singleResponses] = await Promise.all([Promise.all(batches), Promise.all(singles)]);

    for (const response of batchResponses) {
      expect(response.status).toBe(200);
      expect((response.body.results as { status: number }[]).map((result) => result.status)).toEqual([
        201, 201, 201, 201, 201, 201,
      ]);
    }
    expect(singleResponses.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 201));
    expect((await storedSession(sessionId))?.eventCount).toBe(68);
    const { served, recount } = await statsAgainstRecount(owner, "late-batch-agent");
    expect(served).toEqual(recount);
    expect((served.totals as Record<string, unknown>).events).toBe(68);
  });
});
