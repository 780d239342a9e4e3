/**
 * Issue 21, finding 6: `DELETE /api/sdk/sessions/{id}` and a user's erasure logged no key or user id and
 * wrote no audit item. Now each is attributed, like key changes are: the request's log line names the key id
 * (never the key) or the signed-in user, and an audit record is written with the deletion itself.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gatewayEvent, lambdaContext } from "../../bench/harness/gateway-event.js";
import { routeById } from "../../functions/routes.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

let api: LocalApi;
let key: TestKey;
let owner: TestUser;
let member: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  key = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
  owner = await createTestUser(api, { orgId: key.orgId, role: "owner" });
  member = await createTestUser(api, { orgId: key.orgId, role: "member" });
});
afterAll(() => api.close());
afterEach(() => vi.restoreAllMocks());

/** The request log lines written while `act` runs (off Lambda the logger writes JSON lines to the console). */
async function requestLogLines(act: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  for (const method of ["log", "info"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
      original(...args);
    });
  }
  await act();
  vi.restoreAllMocks();
  return lines.flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      return parsed.message === "request" ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

const asUser = (user: TestUser) => ({ key: user.token, headers: { "x-organization-id": key.orgId } });

async function audit(): Promise<Record<string, unknown>[]> {
  const response = await call(api, "GET", "/api/audit/deletions", { key: owner.token });
  expect(response.status).toBe(200);
  return response.body.items as Record<string, unknown>[];
}

describe("deletions are attributed", () => {
  it("a session deleted with an API key: its key id in the log line and in the audit, with the events deleted", async () => {
    const sessionId = await createTestSession(api, key.key);
    await call(api, "POST", "/api/sdk/events", {
      key: key.key,
      body: { sessionId, eventType: "tool_call", toolName: "lookup" },
    });

    const lines = await requestLogLines(() => call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: key.key }));

    expect(lines.find((line) => line.route === "DELETE /api/sdk/sessions/{id}")).toMatchObject({
      status: 204,
      orgId: key.orgId,
      keyId: key.keyId,
    });
    expect((await audit()).find((record) => record.target === sessionId)).toEqual({
      id: expect.stringMatching(/^aud_/),
      action: "session.deleted",
      environment: "live",
      target: sessionId,
      actor: { kind: "apiKey", id: key.keyId },
      at: expect.any(String),
      jobId: null,
      deletedEvents: 1,
    });
  });

  it("a deletion that runs out of time answers 503 with Retry-After, and the same DELETE finishes it: one audit record", async () => {
    const sessionId = await createTestSession(api, key.key);
    const batch = await call(api, "POST", "/api/sdk/events/batch", {
      key: key.key,
      body: {
        events: Array.from({ length: 100 }, (_, n) => ({ sessionId, eventType: "tool_call", toolName: `t${n}` })),
      },
    });
    expect(batch.status).toBe(200);
    const route = routeById("DeleteSession");
    const { handler } = await import("../../functions/sessions/delete-session.js");
    // 520 ms left: middy answers 500 ms before the end, before a hundred events are deleted.
    const deadline = Date.now() + 520;
    const result = await handler(
      gatewayEvent(route, {
        path: `/api/sdk/sessions/${sessionId}`,
        pathParameters: { id: sessionId },
        headers: { authorization: `Bearer ${key.key}` },
      }),
      { ...lambdaContext(route.id, 1024), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) },
    );
    expect(result.statusCode).toBe(503);
    expect(result.headers?.["retry-after"]).toBe("2");
    expect(JSON.parse(String(result.body))).toEqual({
      error: "Service Unavailable",
      message: "The request did not finish in time; retry after the Retry-After delay",
    });

    // The client retries (the cut-short deletion may still be running: 409 says retry too) until it is gone.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 204 && status !== 404; attempt++) {
      status = (await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: key.key })).status;
      expect([204, 404, 409]).toContain(status);
      if (status === 409) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: key.key })).status).toBe(404);
    // expect.poll's default 1 s is shorter than one audit read took in a loaded full run ("didn't resolve in time").
    await expect
      .poll(async () => (await audit()).filter((record) => record.target === sessionId).length, { timeout: 15_000 })
      .toBe(1);
  });

  it("a session deleted from the console: the signed-in user in the log line and in the audit", async () => {
    const sessionId = await createTestSession(api, key.key);

    const lines = await requestLogLines(() => call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, asUser(owner)));

    const line = lines.find((entry) => entry.route === "DELETE /api/sdk/sessions/{id}");
    expect(line).toMatchObject({ status: 204, userId: owner.userId });
    expect(line).not.toHaveProperty("keyId");
    expect((await audit()).find((record) => record.target === sessionId)).toMatchObject({
      action: "session.deleted",
      actor: { kind: "user", id: owner.userId },
      deletedEvents: 0,
    });
  });

  it("an erasure: its key id in the log line, one audit record with its job, none for a repeated request", async () => {
    const userId = `leaving-${Date.now()}`;
    await createTestSession(api, key.key, { userId });

    const lines = await requestLogLines(() => call(api, "DELETE", `/api/sdk/users/${userId}`, { key: key.key }));
    const repeated = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: key.key });

    expect(lines.find((line) => line.route === "DELETE /api/sdk/users/{userId}")).toMatchObject({
      status: 202,
      keyId: key.keyId,
    });
    const records = (await audit()).filter((record) => record.target === userId);
    expect(records).toEqual([
      expect.objectContaining({
        action: "user.erasure.requested",
        actor: { kind: "apiKey", id: key.keyId },
        jobId: repeated.body.jobId,
      }),
    ]);
  });

  it("the audit is for admins and owners of the organisation only, newest first", async () => {
    const refused = await call(api, "GET", "/api/audit/deletions", { key: member.token });
    const stranger = await createTestKey();
    const strangerOwner = await createTestUser(api, { orgId: stranger.orgId, role: "owner" });
    const theirs = await call(api, "GET", "/api/audit/deletions", { key: strangerOwner.token });
    const ours = await audit();

    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(
      new RegExp(`^Your role in organisation ${key.orgId} is member; this action needs admin`),
    );
    expect(theirs.body.items).toEqual([]);
    const times = ours.map((record) => String(record.at));
    expect(times).toEqual([...times].sort().reverse());
  });
});
