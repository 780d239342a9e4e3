/**
 * POST /api/sdk/sessions with a client-generated `id` and a `startedAt`: an SDK starts a run while the service is
 * unreachable, records its events against that id and delivers the start later, retrying it after network failures.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  startTestApi,
  storedSession,
  type TestKey,
} from "../support/fixtures.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const TAKEN =
  /^A session with this id already exists \(ses_[0-9A-HJKMNP-TV-Z]{26}\); a retry must send the same name, agentName, userId and startedAt$/;

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
});
afterAll(() => api.close());

/** A start of its own agent (so agent counts and stats hold only this test's sessions). */
function startBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "offline run", agentName: `agent-${randomUUID().slice(0, 8)}`, userId: "customer-42", ...overrides };
}

function start(body: Record<string, unknown>, key = owner.key, headers: Record<string, string> = {}) {
  return call(api, "POST", "/api/sdk/sessions", { key, body, headers });
}

async function agentSessionCount(agentName: string, key = owner.key): Promise<number | undefined> {
  const response = await call(api, "GET", "/api/sdk/agents", { key });
  expect(response.status).toBe(200);
  const agents = response.body.items as { agentName: string; sessionCount: number }[];
  return agents.find((agent) => agent.agentName === agentName)?.sessionCount;
}

async function daySessions(agentName: string, day: string): Promise<number> {
  const response = await call(api, "GET", `/api/sdk/agents/${agentName}/stats?from=${day}&to=${day}`, {
    key: owner.key,
  });
  expect(response.status, response.text).toBe(200);
  const days = response.body.days as { day: string; sessions: number }[];
  return days.find((entry) => entry.day === day)?.sessions ?? 0;
}

function expectConflict(response: ApiResponse): void {
  expect(response.status, response.text).toBe(409);
  expect(response.body).toEqual({ error: "Conflict", message: expect.stringMatching(TAKEN) });
}

describe("a client-generated id", () => {
  it("creates the session with that id, readable at GET /api/sdk/sessions/:id", async () => {
    // Prepare
    const id = newId("session");
    const body = startBody({ id });

    // Act
    const response = await start(body);

    // Assess
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ id, name: body.name, agentName: body.agentName, status: "active" });
    const read = await call(api, "GET", `/api/sdk/sessions/${id}`, { key: owner.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, name: "offline run", userId: "customer-42", eventCount: 0 });
    expect(await storedSession(id)).not.toHaveProperty("startedAt");
  });

  it("answers a repeat of the same start with the stored session: 201, same createdAt, counted once", async () => {
    // Prepare
    const id = newId("session");
    const body = startBody({ id, metadata: { attempt: 1 } });
    const first = await start(body);
    expect(first.status).toBe(201);
    const storedBefore = await storedSession(id);

    // Act: the SDK retries (its Idempotency-Key record may have expired), metadata not compared
    const again = await start({ ...body, metadata: { attempt: 2 } });
    const third = await start(body, owner.key, { "idempotency-key": randomUUID() });

    // Assess
    expect(again.status, again.text).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(third.status, third.text).toBe(201);
    expect(third.body).toEqual(first.body);
    expect(await storedSession(id)).toEqual(storedBefore);
    expect(await agentSessionCount(String(body.agentName))).toBe(1);
    expect(await daySessions(String(body.agentName), String(first.body.createdAt).slice(0, 10))).toBe(1);
    const listing = await call(api, "GET", `/api/sdk/sessions?agentName=${String(body.agentName)}`, {
      key: owner.key,
    });
    expect((listing.body.items as { id: string }[]).map((item) => item.id)).toEqual([id]);
  });

  it("answers a repeat after the session ended with the stored, ended session", async () => {
    const id = newId("session");
    const body = startBody({ id });
    expect((await start(body)).status).toBe(201);
    const ended = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: owner.key,
      body: { status: "completed" },
    });
    expect(ended.status).toBe(200);

    const again = await start(body);

    expect(again.status, again.text).toBe(201);
    expect(again.body).toMatchObject({ id, status: "completed" });
    expect(await agentSessionCount(String(body.agentName))).toBe(1);
  });

  it.each([
    ["another name", { name: "another run" }],
    ["another agent", { agentName: "another-agent" }],
    ["another user", { userId: "customer-43" }],
    ["another startedAt", { startedAt: new Date(Date.now() - DAY_MS).toISOString() }],
  ])("refuses a start with %s under a taken id: 409, nothing changed", async (_label, change) => {
    // Prepare
    const id = newId("session");
    const body = startBody({ id, startedAt: new Date(Date.now() - 2 * DAY_MS).toISOString() });
    expect((await start(body)).status).toBe(201);
    const storedBefore = await storedSession(id);

    // Act
    const response = await start({ ...body, ...change });

    // Assess
    expectConflict(response);
    expect(await storedSession(id)).toEqual(storedBefore);
    expect(await agentSessionCount(String(body.agentName))).toBe(1);
    if ("agentName" in change) expect(await agentSessionCount("another-agent")).toBeUndefined();
  });

  it("refuses another organisation's (or environment's) start with the same id: 409 that names no owner, nothing changed", async () => {
    // Prepare
    const id = newId("session");
    const body = startBody({ id });
    expect((await start(body)).status).toBe(201);
    const storedBefore = await storedSession(id);
    const stranger = await createTestKey();
    const ownTestEnvironment = await createTestKey({ orgId: owner.orgId, environment: "test" });

    // Act: the very same fields, from other tenants
    const foreign = await start(body, stranger.key);
    const otherEnvironment = await start(body, ownTestEnvironment.key);

    // Assess
    expectConflict(foreign);
    expectConflict(otherEnvironment);
    expect(foreign.text).not.toContain(owner.orgId);
    expect(foreign.body).toEqual(otherEnvironment.body);
    expect(await storedSession(id)).toEqual(storedBefore);
    expect(await agentSessionCount(String(body.agentName), stranger.key)).toBeUndefined();
    expect(await agentSessionCount(String(body.agentName), ownTestEnvironment.key)).toBeUndefined();
    expect((await call(api, "GET", `/api/sdk/sessions/${id}`, { key: stranger.key })).status).toBe(403);
  });

  it.each([
    ["too short", "ses_x"],
    ["another kind of id", newId("event")],
    ["lower case", newId("session").toLowerCase()],
    ["a prototype name", "__proto__"],
    ["constructor", "constructor"],
    ["a ULID with a letter Crockford leaves out (U)", `ses_${"U".repeat(26)}`],
    ["surrounding spaces", ` ${newId("session")} `],
  ])("refuses an id that is %s: 400 naming id, nothing stored", async (_label, id) => {
    const body = startBody({ id });

    const response = await start(body);

    expect(response.status, response.text).toBe(400);
    expect(response.body.issues).toEqual([
      { path: "id", message: 'Must be "ses_" followed by a ULID (26 characters of Crockford base32, upper case)' },
    ]);
    expect(await agentSessionCount(String(body.agentName))).toBeUndefined();
  });

  it("refuses an id that is not a string", async () => {
    const response = await start(startBody({ id: 7 }));

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([{ path: "id", message: "Must be a string" }]);
  });

  it("takes events recorded against the client id", async () => {
    // Prepare
    const id = newId("session");
    expect((await start(startBody({ id }))).status).toBe(201);

    // Act
    const single = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId: id, eventType: "tool_call", toolName: "search", occurredAt: new Date().toISOString() },
    });
    const batch = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [{ sessionId: id, eventType: "llm_decision", confidence: 0.5 }] },
    });

    // Assess
    expect(single.status, single.text).toBe(201);
    expect(single.body.sessionId).toBe(id);
    expect(batch.status).toBe(200);
    expect(batch.body.results).toEqual([expect.objectContaining({ status: 201 })]);
    const read = await call(api, "GET", `/api/sdk/sessions/${id}`, { key: owner.key });
    expect(read.body).toMatchObject({ eventCount: 2, toolCalls: { search: 1 } });
  });
});

describe("startedAt", () => {
  it("backdates the session: createdAt, listings filtered by time, the day's stats and the TTL follow it", async () => {
    // Prepare: three days ago, sent with an offset
    const startedMs = Date.now() - 3 * DAY_MS;
    const utc = new Date(startedMs).toISOString();
    const withOffset = new Date(startedMs + 2 * 60 * 60 * 1000).toISOString().replace("Z", "+02:00");
    const body = startBody({ startedAt: withOffset });
    const before = Date.now();

    // Act
    const response = await start(body);

    // Assess
    expect(response.status, response.text).toBe(201);
    expect(response.body.createdAt).toBe(utc);
    const id = String(response.body.id);
    const read = await call(api, "GET", `/api/sdk/sessions/${id}`, { key: owner.key });
    expect(read.body.createdAt).toBe(utc);
    expect(Date.parse(String(read.body.updatedAt))).toBeGreaterThanOrEqual(before);
    expect(Date.parse(String(read.body.lastActivityAt))).toBeGreaterThanOrEqual(before);
    const window = `from=${new Date(startedMs - 60_000).toISOString()}&to=${new Date(startedMs + 60_000).toISOString()}`;
    for (const filter of ["", `agentName=${String(body.agentName)}&`, "userId=customer-42&", "status=active&"]) {
      const listing = await call(api, "GET", `/api/sdk/sessions?${filter}${window}`, { key: owner.key });
      expect(listing.status, listing.text).toBe(200);
      expect(
        (listing.body.items as { id: string }[]).map((item) => item.id),
        filter,
      ).toContain(id);
    }
    const recent = await call(
      api,
      "GET",
      `/api/sdk/sessions?agentName=${String(body.agentName)}&from=${new Date(before - 60_000).toISOString()}`,
      {
        key: owner.key,
      },
    );
    expect(recent.body.items).toEqual([]);
    expect(await daySessions(String(body.agentName), utc.slice(0, 10))).toBe(1);
    expect(await daySessions(String(body.agentName), new Date().toISOString().slice(0, 10))).toBe(0);
    const stored = await storedSession(id);
    expect(stored?.ttl).toBe(Math.floor(startedMs / 1000) + 90 * 24 * 60 * 60);
  });

  it("counts a backdated session's outcome on the day it started", async () => {
    const startedAt = new Date(Date.now() - 2 * DAY_MS).toISOString();
    const body = startBody({ startedAt });
    const id = String((await start(body)).body.id);

    const ended = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body: { status: "failed" } });

    expect(ended.status).toBe(200);
    const day = startedAt.slice(0, 10);
    const stats = await call(api, "GET", `/api/sdk/agents/${String(body.agentName)}/stats?from=${day}&to=${day}`, {
      key: owner.key,
    });
    expect(stats.body.days).toEqual([expect.objectContaining({ day, sessions: 1, failed: 1 })]);
  });

  it.each([
    [
      "10 minutes ahead",
      () => new Date(Date.now() + 10 * 60_000).toISOString(),
      "Must be at most 5 minutes in the future",
    ],
    [
      "older than the retention",
      () => new Date(Date.now() - 91 * DAY_MS).toISOString(),
      "Must not be older than the retention window (90 days)",
    ],
    ["not a timestamp", () => "yesterday", "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z"],
    ["a date without a time", () => "2026-11-20", "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z"],
  ])("refuses a startedAt %s: 400 naming startedAt, nothing stored", async (_label, startedAt, message) => {
    const id = newId("session");
    const body = startBody({ id, startedAt: startedAt() });

    const response = await start(body);

    expect(response.status, response.text).toBe(400);
    expect(response.body.issues).toEqual([{ path: "startedAt", message }]);
    expect(await storedSession(id)).toBeUndefined();
    expect(await agentSessionCount(String(body.agentName))).toBeUndefined();
  });

  it("accepts a startedAt a little ahead of the service's clock (within 5 minutes)", async () => {
    const startedAt = new Date(Date.now() + 2 * 60_000).toISOString();

    const response = await start(startBody({ startedAt }));

    expect(response.status, response.text).toBe(201);
    expect(response.body.createdAt).toBe(startedAt);
  });

  it("a retry that leaves startedAt out is still a repeat", async () => {
    const id = newId("session");
    const body = startBody({ id, startedAt: new Date(Date.now() - DAY_MS).toISOString() });
    const first = await start(body);

    const { startedAt: _left, ...retry } = body;
    const again = await start(retry);

    expect(again.status, again.text).toBe(201);
    expect(again.body).toEqual(first.body);
  });
});

describe("Idempotency-Key with a client id", () => {
  it("creates under the client id (not the key's planned id), replays, and a new key with the same start is a repeat", async () => {
    // Prepare
    const id = newId("session");
    const body = startBody({ id, startedAt: new Date(Date.now() - 60_000).toISOString() });
    const key = randomUUID();

    // Act
    const first = await start(body, owner.key, { "idempotency-key": key });
    const replay = await start(body, owner.key, { "idempotency-key": key });
    const otherKey = await start(body, owner.key, { "idempotency-key": randomUUID() });
    const sameKeyOtherId = await start({ ...body, id: newId("session") }, owner.key, { "idempotency-key": key });
    const otherKeyOtherName = await start({ ...body, name: "changed" }, owner.key, {
      "idempotency-key": randomUUID(),
    });

    // Assess
    expect(first.status, first.text).toBe(201);
    expect(first.body.id).toBe(id);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(otherKey.status).toBe(201);
    expect(otherKey.body).toEqual(first.body);
    expect(sameKeyOtherId.status).toBe(422);
    expectConflict(otherKeyOtherName);
    expect(await agentSessionCount(String(body.agentName))).toBe(1);
  });
});
