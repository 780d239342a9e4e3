/**
 * Issue 11: `RateLimit-*` headers were missing on 4xx answers and idempotent replays (middy skips `after`
 * for early responses, and runs `onError` before the error mapper has built the answer). Every answer to
 * an authenticated SDK request carries them now.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  createTestSession,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;
let stranger: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
  stranger = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
});
afterAll(() => api.close());

function expectRateLimitHeaders(response: ApiResponse): void {
  expect(response.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
  expect(response.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
  expect(response.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
}

describe("RateLimit headers on every answer to an authenticated SDK request", () => {
  it("a 400 for an invalid body", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body: { name: "" } });
    expect(response.status).toBe(400);
    expectRateLimitHeaders(response);
  });

  it("a 404 for an unknown session", async () => {
    const response = await call(api, "GET", "/api/sdk/sessions/ses_01JAAAAAAAAAAAAAAAAAAAAAAA", { key: owner.key });
    expect(response.status).toBe(404);
    expectRateLimitHeaders(response);
  });

  it("a 403 for another organisation's session", async () => {
    const sessionId = await createTestSession(api, stranger.key);
    const response = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    expect(response.status).toBe(403);
    expectRateLimitHeaders(response);
  });

  it("a 409 for a change to an ended session", async () => {
    const sessionId = await createTestSession(api, owner.key);
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body: { status: "completed" } });
    const response = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { status: "failed" },
    });
    expect(response.status).toBe(409);
    expectRateLimitHeaders(response);
  });

  it("a 413 for a body over the limit", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      // Over the route's 256 KiB, within what API Gateway and Lambda pass on (over 6 MB they answer themselves).
      body: JSON.stringify({ name: "x".repeat(300_000) }),
    });
    expect(response.status).toBe(413);
    expectRateLimitHeaders(response);
  });

  it("an idempotent replay and a 422 for a reused Idempotency-Key", async () => {
    const headers = { "idempotency-key": randomUUID() };
    const body = { name: "replayed", agentName: "agent", userId: "user" };
    const first = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body, headers });
    const replay = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body, headers });
    const mismatch = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { ...body, name: "another" },
      headers,
    });

    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expectRateLimitHeaders(replay);
    expect(mismatch.status).toBe(422);
    expectRateLimitHeaders(mismatch);
  });

  it("but not a 401: an unauthenticated request has no budget to report", async () => {
    const response = await call(api, "GET", "/api/sdk/sessions", { key: "ats_live_nope" });
    expect(response.status).toBe(401);
    expect(response.headers.get("ratelimit-limit")).toBeNull();
  });
});
