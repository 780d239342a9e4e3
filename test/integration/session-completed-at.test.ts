/**
 * PATCH /api/sdk/sessions/:id with a `completedAt`: an SDK delivers a run's end after it happened (after an outage,
 * or replaying past runs), so the session's `completedAt` is when the run ended, not when the PATCH arrived.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
const MINUTE_MS = 60_000;
const CONFLICT =
  /^Session ses_[0-9A-HJKMNP-TV-Z]{26} is already (completed|failed) and cannot be changed; only an identical repeat of its final update is accepted$/;

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
});
afterAll(() => api.close());

/** Starts a session of its own agent, `startedAt` if given; returns its id and createdAt. */
async function startSession(startedAt?: string): Promise<{ id: string; createdAt: string; agentName: string }> {
  const agentName = `agent-${randomUUID().slice(0, 8)}`;
  const response = await call(api, "POST", "/api/sdk/sessions", {
    key: owner.key,
    body: { name: "late end", agentName, userId: "customer-42", ...(startedAt === undefined ? {} : { startedAt }) },
  });
  expect(response.status, response.text).toBe(201);
  return { id: String(response.body.id), createdAt: String(response.body.createdAt), agentName };
}

function patch(id: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body });
}

function read(id: string): Promise<ApiResponse> {
  return call(api, "GET", `/api/sdk/sessions/${id}`, { key: owner.key });
}

function expectInvalidCompletedAt(response: ApiResponse, message: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body).toMatchObject({
    error: "Bad Request",
    message: expect.stringContaining("completedAt"),
    issues: [{ path: "completedAt", message }],
  });
}

describe("completedAt", () => {
  it("ends a run started 3 days ago when it ended (sent with an offset): GET shows both, updatedAt stays service time", async () => {
    // Prepare
    const startedMs = Date.now() - 3 * DAY_MS;
    const startedAt = new Date(startedMs).toISOString();
    const endedMs = startedMs + 5 * MINUTE_MS;
    const completedAt = new Date(endedMs).toISOString();
    const withOffset = new Date(endedMs - 5 * 60 * 60 * 1000).toISOString().replace("Z", "-05:00");
    const { id, agentName } = await startSession(startedAt);
    const before = Date.now();

    // Act
    const ended = await patch(id, { status: "completed", completedAt: withOffset, durationMs: 5 * MINUTE_MS });

    // Assess
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body).toMatchObject({ id, status: "completed", success: true, completedAt });
    const session = await read(id);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ createdAt: startedAt, completedAt, status: "completed", stale: false });
    expect(Date.parse(String(session.body.updatedAt))).toBeGreaterThanOrEqual(before);
    expect(Date.parse(String(session.body.lastActivityAt))).toBeGreaterThanOrEqual(before);
    expect(await storedSession(id)).toMatchObject({ completedAt, createdAt: startedAt });
    const day = startedAt.slice(0, 10);
    const stats = await call(api, "GET", `/api/sdk/agents/${agentName}/stats?from=${day}&to=${day}`, {
      key: owner.key,
    });
    expect(stats.body.days).toEqual([expect.objectContaining({ day, sessions: 1, completed: 1 })]);
    const listing = await call(api, "GET", `/api/sdk/sessions?status=completed&agentName=${agentName}`, {
      key: owner.key,
    });
    expect(listing.body.items).toEqual([expect.objectContaining({ id, completedAt })]);
  });

  it.each([
    ["alone", { completedAt: new Date().toISOString() }],
    ["with metrics only", { durationMs: 1200, completedAt: new Date().toISOString() }],
  ])(
    "refuses a completedAt without a final status (%s): 400 naming completedAt, nothing changed",
    async (_label, body) => {
      const { id } = await startSession();
      const storedBefore = await storedSession(id);

      const response = await patch(id, body);

      expectInvalidCompletedAt(response, "Only with a final status (completed or failed)");
      expect(await storedSession(id)).toEqual(storedBefore);
    },
  );

  it("refuses a completedAt before the session's createdAt: 400 naming completedAt, the session stays active", async () => {
    const startedAt = new Date(Date.now() - DAY_MS).toISOString();
    const { id } = await startSession(startedAt);
    const storedBefore = await storedSession(id);

    const response = await patch(id, {
      status: "completed",
      completedAt: new Date(Date.parse(startedAt) - 1).toISOString(),
    });

    expectInvalidCompletedAt(response, `Must not be before the session's createdAt (${startedAt})`);
    expect(await storedSession(id)).toEqual(storedBefore);
    expect((await read(id)).body).toMatchObject({ status: "active", completedAt: null });
  });

  it.each([
    [
      "10 minutes ahead",
      () => new Date(Date.now() + 10 * MINUTE_MS).toISOString(),
      "Must be at most 5 minutes in the future",
    ],
    [
      "older than the retention",
      () => new Date(Date.now() - 91 * DAY_MS).toISOString(),
      "Must not be older than the retention window (90 days)",
    ],
    ["not a timestamp", () => "yesterday", "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z"],
  ])("refuses a completedAt %s: 400 naming completedAt, nothing changed", async (_label, completedAt, message) => {
    const { id } = await startSession();
    const storedBefore = await storedSession(id);

    const response = await patch(id, { status: "failed", completedAt: completedAt() });

    expectInvalidCompletedAt(response, message);
    expect(await storedSession(id)).toEqual(storedBefore);
  });

  it("accepts a completedAt a little ahead of the service's clock (within 5 minutes)", async () => {
    const { id } = await startSession();
    const completedAt = new Date(Date.now() + 2 * MINUTE_MS).toISOString();

    const response = await patch(id, { status: "completed", completedAt });

    expect(response.status, response.text).toBe(200);
    expect(response.body.completedAt).toBe(completedAt);
  });

  it("answers a repeat of the final update with the same completedAt (or without one) with the stored session: 200", async () => {
    // Prepare
    const startedAt = new Date(Date.now() - 2 * DAY_MS).toISOString();
    const completedAt = new Date(Date.parse(startedAt) + 90_000).toISOString();
    const { id } = await startSession(startedAt);
    const body = { status: "failed", completedAt, failureReason: "timeout" };
    const first = await patch(id, body);
    expect(first.status, first.text).toBe(200);
    const storedBefore = await storedSession(id);

    // Act
    const again = await patch(id, body);
    const withoutCompletedAt = await patch(id, { status: "failed", failureReason: "timeout" });

    // Assess
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body.completedAt).toBe(completedAt);
    expect(withoutCompletedAt.status, withoutCompletedAt.text).toBe(200);
    expect(withoutCompletedAt.body).toEqual(first.body);
    expect(await storedSession(id)).toEqual(storedBefore);
  });

  /** A session started 3 days ago and ended 5 minutes later with a completedAt; its start and stored item. */
  async function endedSession() {
    const startedMs = Date.now() - 3 * DAY_MS;
    const { id, createdAt } = await startSession(new Date(startedMs).toISOString());
    const completedAt = new Date(startedMs + 5 * MINUTE_MS).toISOString();
    expect((await patch(id, { status: "completed", completedAt })).status).toBe(200);
    return { id, startedMs, createdAt, completedAt, storedBefore: await storedSession(id) };
  }

  it("refuses another completedAt on an ended session: 409, nothing changed", async () => {
    // Prepare
    const { id, startedMs, completedAt, storedBefore } = await endedSession();

    // Act
    const response = await patch(id, {
      status: "completed",
      completedAt: new Date(startedMs + 10 * MINUTE_MS).toISOString(),
    });

    // Assess
    expect(response.status, response.text).toBe(409);
    expect(response.body).toEqual({ error: "Conflict", message: expect.stringMatching(CONFLICT) });
    expect(await storedSession(id)).toEqual(storedBefore);
    expect((await read(id)).body.completedAt).toBe(completedAt);
  });

  it("refuses a completedAt before the start on an ended session as invalid: 400, nothing changed", async () => {
    const { id, startedMs, createdAt, completedAt, storedBefore } = await endedSession();

    const response = await patch(id, { status: "completed", completedAt: new Date(startedMs - 1).toISOString() });

    expectInvalidCompletedAt(response, `Must not be before the session's createdAt (${createdAt})`);
    expect(await storedSession(id)).toEqual(storedBefore);
    expect((await read(id)).body.completedAt).toBe(completedAt);
  });

  it("without completedAt, ending a backdated session stamps the service's time as before", async () => {
    const startedAt = new Date(Date.now() - 3 * DAY_MS).toISOString();
    const { id } = await startSession(startedAt);
    const before = Date.now();

    const ended = await patch(id, { status: "completed" });

    expect(ended.status, ended.text).toBe(200);
    const completedMs = Date.parse(String(ended.body.completedAt));
    expect(completedMs).toBeGreaterThanOrEqual(before);
    expect(completedMs).toBeLessThanOrEqual(Date.now());
    expect((await read(id)).body).toMatchObject({ createdAt: startedAt, completedAt: ended.body.completedAt });
  });
});
