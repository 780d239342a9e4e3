/**
 * An event's `durationMs` over real HTTP: sent with a single event and with a batch's, stored on the event item
 * (one attribute of the one write), returned by the read API (null for an event sent without one), and refused
 * field by field when it is no whole number of milliseconds from 0 to LIMITS.maxDurationMs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../functions/domain/limits.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  readAllEvents,
  startTestApi,
  storedEvents,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

const BAD_DURATION = `Must be an integer from 0 to ${LIMITS.maxDurationMs}`;

describe("durationMs of events", () => {
  it("POST /api/sdk/events stores it on the event item and the read API returns it; null when not sent", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const startedAt = new Date(Date.now() - 5_000).toISOString();

    // Act
    const timed = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "tool_call", toolName: "search", occurredAt: startedAt, durationMs: 2000 },
    });
    const point = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "state_change", reasoning: "ready" },
    });

    // Assess
    expect([timed.status, point.status]).toEqual([201, 201]);
    const items = await storedEvents(sessionId);
    expect(items.find((item) => item.id === timed.body.id)?.durationMs).toBe(2000);
    expect(items.find((item) => item.id === point.body.id)).not.toHaveProperty("durationMs");
    const { events } = await readAllEvents(api, owner.key, sessionId);
    const byId = new Map(events.map((event) => [event.id, event]));
    expect(byId.get(timed.body.id)).toMatchObject({ occurredAt: startedAt, durationMs: 2000 });
    expect(byId.get(point.body.id)?.durationMs).toBeNull();
    const summary = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events?fields=summary`, { key: owner.key });
    expect((summary.body.items as Record<string, unknown>[]).map((event) => event.durationMs).sort()).toEqual([
      2000,
      null,
    ]);
  });

  it("POST /api/sdk/events/batch stores each event's own; a bad one is that event's 400, the others are stored", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);

    // Act
    const response = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: {
        events: [
          { sessionId, eventType: "llm_decision", model: "gpt-4o-mini", durationMs: 0 },
          { sessionId, eventType: "tool_call", toolName: "fetch", durationMs: 1234, idempotencyKey: "call-1" },
          { sessionId, eventType: "tool_call", toolName: "fetch", durationMs: 12.5 },
          { sessionId, eventType: "tool_call", toolName: "fetch", durationMs: LIMITS.maxDurationMs },
        ],
      },
    });

    // Assess
    expect(response.status).toBe(200);
    const results = response.body.results as { status: number; id?: string; error?: Record<string, unknown> }[];
    expect(results.map((result) => result.status)).toEqual([201, 201, 400, 201]);
    expect(results[2]?.error?.issues).toEqual([{ path: "durationMs", message: BAD_DURATION }]);
    const { events } = await readAllEvents(api, owner.key, sessionId);
    const durations = new Map(events.map((event) => [event.id, event.durationMs]));
    expect([results[0]?.id, results[1]?.id, results[3]?.id].map((id) => durations.get(id))).toEqual([
      0,
      1234,
      LIMITS.maxDurationMs,
    ]);
    expect(events).toHaveLength(3);
  });

  it.each([-1, LIMITS.maxDurationMs + 1, 2.5, "2000", true])(
    "POST /api/sdk/events with durationMs %j is 400 naming the field, and stores nothing",
    async (durationMs) => {
      // Prepare
      const sessionId = await createTestSession(api, owner.key);

      // Act
      const response = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "tool_call", toolName: "search", durationMs },
      });

      // Assess
      expect(response.status).toBe(400);
      expect(response.body.issues).toEqual([{ path: "durationMs", message: BAD_DURATION }]);
      expect(await storedEvents(sessionId)).toEqual([]);
    },
  );
});
