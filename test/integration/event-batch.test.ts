/** POST /api/sdk/events/batch and occurredAt: per-event validation and authorisation, exact counters, per-event idempotency. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetSession } from "../../functions/store/sessions/session-access.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { recordDynamoCommands } from "../support/dynamo-call-counter.js";
import {
  call,
  createTestKey,
  createTestSession,
  startTestApi,
  storedEvents,
  storedSession,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

type Result = {
  index: number;
  status: number;
  id?: string;
  replayed?: true;
  error?: { error: string; message: string };
};
const results = (body: Record<string, unknown>) => body.results as Result[];

describe("POST /api/sdk/events/batch", () => {
  it("stores every valid event, reports each invalid or foreign one, and keeps counters exact", async () => {
    const first = await createTestSession(api, owner.key);
    const second = await createTestSession(api, owner.key);
    const stranger = await createTestKey();
    const foreign = await createTestSession(api, stranger.key);
    const events = [
      { sessionId: first, eventType: "tool_call", toolName: "search", estimatedCost: 0.25 },
      { sessionId: first, eventType: "thought" },
      { sessionId: second, eventType: "error", toolName: "search", estimatedCost: 0.5 },
      { sessionId: foreign, eventType: "error" },
      { sessionId: "ses_01JAAAAAAAAAAAAAAAAAAAAAAA", eventType: "error" },
      { sessionId: first, eventType: "llm_decision", confidence: 0.3, estimatedCost: 0.25 },
    ];

    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });

    expect(response.status).toBe(200);
    expect(results(response.body).map((result) => [result.index, result.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 201],
      [3, 403],
      [4, 404],
      [5, 201],
    ]);
    expect(results(response.body)[1]?.error).toMatchObject({ error: "Bad Request" });
    expect(await storedSession(first)).toMatchObject({ eventCount: 2, eventCost: 0.5, toolCalls: { search: 1 } });
    expect(await storedSession(second)).toMatchObject({ eventCount: 1, eventCost: 0.5, toolErrors: { search: 1 } });
    expect(await storedEvents(foreign)).toHaveLength(0);
    expect((await storedEvents(first)).map((event) => event.id).sort()).toEqual(
      [results(response.body)[0]?.id, results(response.body)[5]?.id].sort(),
    );
  });

  it("writes 100 events of one session with exact counters", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const events = Array.from({ length: 100 }, (_, index) => ({
      sessionId,
      eventType: index % 2 === 0 ? "tool_call" : "state_change",
      toolName: `tool-${index % 5}`,
      estimatedCost: 0.25,
    }));

    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });

    expect(results(response.body).every((result) => result.status === 201)).toBe(true);
    expect(await storedEvents(sessionId)).toHaveLength(100);
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 100, eventCost: 25 });
  });

  it("writes 100 events as four parallel BatchWriteItems of 25, without reading a session this container created", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const events = Array.from({ length: 100 }, () => ({ sessionId, eventType: "tool_call", toolName: "search" }));
    const recorder = recordDynamoCommands();
    recorder.reset();

    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });

    expect(results(response.body).every((result) => result.status === 201)).toBe(true);
    const commands = recorder.commands();
    expect(commands.filter((name) => name === "BatchWriteItemCommand")).toHaveLength(4);
    expect(commands.filter((name) => name === "TransactWriteItemsCommand")).toHaveLength(0);
    // The session was created through this container: its tenant is known, so it is not read. (The API key
    // may be: its cache lapses after 1 s in tests, which a slow run crosses.)
    expect(recorder.countOn("GetItemCommand", sessionKey(sessionId).PK)).toBe(0);
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 100, toolCalls: { search: 100 } });
  });

  it("reads a session this container does not know once, then never again", async () => {
    const sessionId = await createTestSession(api, owner.key);
    forgetSession(sessionId);
    const events = Array.from({ length: 30 }, () => ({ sessionId, eventType: "state_change" }));
    const recorder = recordDynamoCommands();
    recorder.reset();

    await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });
    const first = recorder.countOn("GetItemCommand", sessionKey(sessionId).PK);
    recorder.reset();
    // Longer than the API key cache's 1 s in tests: the key is read again, the session must not be.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });
    const second = recorder.countOn("GetItemCommand", sessionKey(sessionId).PK);

    expect([first, second]).toEqual([1, 0]);
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 60 });
  });

  it("splits a late batch with idempotency keys and many tools so every transaction stays within 100 items", async () => {
    const sessionId = await createTestSession(api, owner.key);
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body: { status: "completed" } });
    const events = Array.from({ length: 100 }, (_, index) => ({
      sessionId,
      eventType: "tool_call",
      toolName: `tool-${index % 25}`,
      idempotencyKey: `late-${sessionId}-${index}`,
    }));

    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });

    expect(response.status).toBe(200);
    expect(results(response.body).map((result) => result.status)).toEqual(events.map(() => 201));
    expect(await storedEvents(sessionId)).toHaveLength(100);
    const session = await storedSession(sessionId);
    expect(session).toMatchObject({ status: "completed", eventCount: 100 });
    // 20 tools by name, the rest counted under "(other)" (MAX_TOOLS_PER_SESSION).
    const toolCalls = (session?.toolCalls ?? {}) as Record<string, number>;
    expect(Object.values(toolCalls).reduce((sum, calls) => sum + calls, 0)).toBe(100);
    expect(Object.keys(toolCalls)).toHaveLength(21);
  });

  it("keeps counters exact when the session changes between a batch's transactions", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const batch = Array.from({ length: 100 }, (_, index) => ({
      sessionId,
      eventType: "tool_call",
      toolName: `tool-${index % 4}`,
      estimatedCost: 0.5,
    }));
    const singles = Array.from({ length: 30 }, () => ({ sessionId, eventType: "error", toolName: "tool-0" }));

    const [batchResponse, ...singleResponses] = await Promise.all([
      call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events: batch } }),
      ...singles.map((body) => call(api, "POST", "/api/sdk/events", { key: owner.key, body })),
    ]);

    expect(batchResponse && results(batchResponse.body).every((result) => result.status === 201)).toBe(true);
    expect(singleResponses.map((response) => response.status)).toEqual(singles.map(() => 201));
    expect(await storedEvents(sessionId)).toHaveLength(130);
    expect(await storedSession(sessionId)).toMatchObject({
      eventCount: 130,
      eventCost: 50,
      toolCalls: { "tool-0": 25, "tool-1": 25, "tool-2": 25, "tool-3": 25 },
      toolErrors: { "tool-0": 30 },
    });
  });

  it("replays an event whose idempotencyKey was already used (same id, nothing written twice); another body is 422", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const key = randomUUID();
    const event = { sessionId, eventType: "error", estimatedCost: 0.5, idempotencyKey: key };

    const first = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events: [event] } });
    const retry = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [event, { ...event, idempotencyKey: randomUUID() }] },
    });
    const changed = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [{ ...event, estimatedCost: 9 }] },
    });

    expect(results(retry.body)[0]).toEqual({ index: 0, status: 201, id: results(first.body)[0]?.id, replayed: true });
    expect(results(retry.body)[1]?.status).toBe(201);
    expect(results(changed.body)[0]).toMatchObject({ status: 422, error: { error: "Unprocessable Content" } });
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 2, eventCost: 1 });
  });

  it("limits a batch to 100 events (400) and its body to 5 MiB (413)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const tooMany = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: Array.from({ length: 101 }, () => ({ sessionId, eventType: "error" })) },
    });
    const tooBig = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [{ sessionId, eventType: "error", reasoning: "x".repeat(5 * 1024 * 1024) }] },
    });

    expect(tooMany.status).toBe(400);
    expect(tooMany.body.issues).toEqual([{ path: "events", message: "Must hold at most 100 events" }]);
    expect(tooBig.status).toBe(413);
  });
});

describe("occurredAt", () => {
  it("is stored as sent (UTC) while createdAt stays the service's; future or pre-retention times are 400", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const occurredAt = new Date(Date.now() - 3_600_000).toISOString();

    const accepted = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "error", occurredAt },
    });
    const future = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "error", occurredAt: new Date(Date.now() + 10 * 60_000).toISOString() },
    });
    const ancient = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "error", occurredAt: "2020-01-01T00:00:00Z" },
    });

    expect(accepted.status).toBe(201);
    const [stored] = await storedEvents(sessionId);
    expect(stored).toMatchObject({ occurredAt });
    expect(Date.parse(String(stored?.createdAt))).toBeGreaterThan(Date.parse(occurredAt) + 3_000_000);
    expect(future.body.issues).toEqual([{ path: "occurredAt", message: "Must be at most 5 minutes in the future" }]);
    expect(ancient.body.issues).toEqual([
      { path: "occurredAt", message: "Must not be older than the retention window (90 days)" },
    ]);
  });
});
