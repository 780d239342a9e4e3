/** Sessions over real HTTP through the local adapter: creation, updates, state rules, tenancy. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  startTestApi,
  storedSession,
  type TestKey,
} from "../support/fixtures.js";

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

describe("POST /api/sdk/sessions", () => {
  it("creates an active session: 201 with a service-assigned ses_ id and a UTC timestamp", async () => {
    // Act
    const response = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { name: "Refund request", agentName: "support-bot", userId: "customer-42", metadata: { plan: "pro" } },
    });

    // Assess
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: "Refund request",
      agentName: "support-bot",
      userId: "customer-42",
      conversationId: null,
      status: "active",
      createdAt: expect.stringMatching(ISO_UTC),
    });
    const stored = await storedSession(String(response.body.id));
    expect(stored).toMatchObject({ orgId: owner.orgId, environment: "live", eventCount: 0, eventCost: 0 });
    expect(JSON.parse(String(stored?.metadataJson))).toEqual({ plan: "pro" });
  });

  it("assigns ids that sort in creation order", async () => {
    const first = await createTestSession(api, owner.key);
    const second = await createTestSession(api, owner.key);
    expect(first < second).toBe(true);
  });

  it("names every missing or invalid field in one 400", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { name: "", userId: 7, metadata: ["not", "an", "object"], extra: true },
    });

    expect(response.status).toBe(400);
    expect(response.body.error).toBe("Bad Request");
    expect(response.body.issues).toEqual(
      expect.arrayContaining([
        { path: "name", message: "Must not be empty" },
        { path: "agentName", message: "Required" },
        { path: "userId", message: "Must be a string" },
        { path: "metadata", message: "Must be a JSON object" },
        { path: "extra", message: "Unknown field" },
      ]),
    );
    expect(response.body.issues).toHaveLength(5);
  });

  it.each([
    ["malformed JSON", '{"name": "x",', "Request body is not valid JSON"],
    ["an empty body", "", "Request body is empty: send a JSON object"],
    ["an array", "[1, 2]", "Request body must be a JSON object"],
    ["a string", '"hello"', "Request body must be a JSON object"],
    ["null", "null", "Request body must be a JSON object"],
  ])("rejects %s with 400", async (_label, raw, message) => {
    const response = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body: raw });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: "Bad Request", message, issues: [{ path: "(body)", message }] });
  });

  it("rejects a body over the size limit with 413", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { name: "big", agentName: "a", userId: "u", metadata: { blob: "x".repeat(300 * 1024) } },
    });
    expect(response.status).toBe(413);
    expect(response.body.error).toBe("Payload Too Large");
    expect(response.body.message).toMatch(/limit is 262144 bytes/);
  });

  it("rejects a non-JSON content type with 415", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(415);
    expect(response.body).toEqual({
      error: "Unsupported Media Type",
      message: "Send the request body as JSON with Content-Type: application/json",
    });
  });
});

describe("PATCH /api/sdk/sessions/:id", () => {
  it("updates metrics without a status and leaves the session active", async () => {
    const id = await createTestSession(api, owner.key);

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: owner.key,
      body: { estimatedCost: 0.12, promptTokens: 100, customMetrics: { retries: 2 } },
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id,
      name: "test run",
      status: "active",
      success: null,
      estimatedCost: 0.12,
      durationMs: null,
      completedAt: null,
    });
    const stored = await storedSession(id);
    expect(stored).toMatchObject({
      status: "active",
      promptTokens: 100,
      GSI4PK: `ORG#${owner.orgId}#ENV#live#STATUS#active`,
    });
    expect(JSON.parse(String(stored?.customMetricsJson))).toEqual({ retries: 2 });
  });

  it("completes a session: 200 with completedAt, success defaulting to true, status indexes moved", async () => {
    const id = await createTestSession(api, owner.key);

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: owner.key,
      body: { status: "completed", estimatedCost: 1.5, durationMs: 5400, totalTokens: 1200 },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id,
      status: "completed",
      success: true,
      estimatedCost: 1.5,
      durationMs: 5400,
    });
    expect(response.body.completedAt).toMatch(ISO_UTC);
    const stored = await storedSession(id);
    expect(stored).toMatchObject({
      status: "completed",
      totalTokens: 1200,
      GSI4PK: `ORG#${owner.orgId}#ENV#live#STATUS#completed`,
      GSI5PK: `ORG#${owner.orgId}#ENV#live#STATUS#completed`,
    });
  });

  it("fails a session with a reason; success defaults to false", async () => {
    const id = await createTestSession(api, owner.key);

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: owner.key,
      body: { status: "failed", failureReason: "tool timed out" },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "failed", success: false });
    expect(await storedSession(id)).toMatchObject({ failureReason: "tool timed out" });
  });

  it("answers a repeat of the final update with 200 and the original completedAt", async () => {
    const id = await createTestSession(api, owner.key);
    const body = { status: "completed", success: true, estimatedCost: 0.3 };
    const first = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body });

    const repeat = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body });

    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
  });

  it.each([
    ["another final status", { status: "failed" }],
    ["a changed metric", { status: "completed", estimatedCost: 9 }],
    ["an update without status", { durationMs: 10 }],
  ])("refuses %s on a terminal session with 409 and changes nothing", async (_label, body) => {
    const id = await createTestSession(api, owner.key);
    await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: owner.key,
      body: { status: "completed", estimatedCost: 1 },
    });
    const before = await storedSession(id);

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body });

    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: "Conflict",
      message: `Session ${id} is already completed and cannot be changed; only an identical repeat of its final update is accepted`,
    });
    expect(await storedSession(id)).toEqual(before);
  });

  it("rejects an invalid update with 400 naming each field", async () => {
    const id = await createTestSession(api, owner.key);

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: owner.key,
      body: { status: "paused", estimatedCost: -1, promptTokens: 1.5, customMetrics: { latency: "fast" } },
    });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: "status", message: "Must be one of: completed, failed" },
      { path: "estimatedCost", message: "Must be a number from 0 to 1000000" },
      { path: "promptTokens", message: "Must be an integer from 0 to 1000000000000" },
      { path: "customMetrics.latency", message: "Must be a finite number" },
    ]);
  });

  it("returns 404 for an unknown or malformed session id", async () => {
    for (const id of ["ses_01JAAAAAAAAAAAAAAAAAAAAAAA", "not-an-id"]) {
      const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body: { durationMs: 1 } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "Not Found", message: `Session ${id} not found` });
    }
  });

  it("returns 403 to another organisation's key and changes nothing", async () => {
    const id = await createTestSession(api, owner.key);
    const stranger = await createTestKey();
    const before = await storedSession(id);

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
      key: stranger.key,
      body: { status: "failed" },
    });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: "Forbidden", message: `This API key has no access to session ${id}` });
    expect(await storedSession(id)).toEqual(before);
  });

  it("keeps the live and test environments of one organisation apart (403)", async () => {
    const id = await createTestSession(api, owner.key);
    const testKey = await createTestKey({ orgId: owner.orgId, environment: "test" });

    const response = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: testKey.key, body: { durationMs: 5 } });

    expect(response.status).toBe(403);
  });
});
