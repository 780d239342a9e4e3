/** Idempotency-Key on the SDK's POST and PATCH routes: replays, mismatches, in-flight retries, crash recovery. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestFingerprint } from "../../functions/http/idempotency.js";
import { createEvent } from "../../functions/store/events/event-store.js";
import { claim, release } from "../../functions/store/events/idempotency-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  itemsOfOrganisation,
  startTestApi,
  storedEvents,
  storedSession,
  type TestKey,
} from "../support/fixtures.js";
import { principalFor } from "../support/seed.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

const session = { name: "idempotent", agentName: "retrier", userId: "u" };
const liveTenant = () => ({ orgId: owner.orgId, environment: "live" as const });

describe("Idempotency-Key", () => {
  it("replays a retried create with the original status and body, and writes nothing more", async () => {
    const key = randomUUID();
    const first = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: session,
      headers: { "idempotency-key": key },
    });
    const retry = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: session,
      headers: { "idempotency-key": key },
    });

    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    const sessions = (await itemsOfOrganisation(owner.orgId)).filter(
      (item) => item.entity === "session" && item.agentName === "retrier",
    );
    expect(sessions).toHaveLength(1);
  });

  it("answers the same key with a different body with 422, changing nothing", async () => {
    const key = randomUUID();
    await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: session,
      headers: { "idempotency-key": key },
    });
    const before = await itemsOfOrganisation(owner.orgId);

    const other = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { ...session, name: "another" },
      headers: { "idempotency-key": key },
    });

    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      error: "Unprocessable Content",
      message: "This Idempotency-Key was already used with a different request; use a new key for a new request",
    });
    expect(await itemsOfOrganisation(owner.orgId)).toEqual(before);
  });

  it("answers a retry while the first request is still in flight with 409", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const key = randomUUID();
    const body = { sessionId, eventType: "error" };
    const raw = JSON.stringify(body);
    const fingerprint = requestFingerprint("live", "POST", "/api/sdk/events", raw);
    await claim(liveTenant(), key, fingerprint); // the first request, still running

    const retry = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: raw,
      headers: { "idempotency-key": key },
    });

    expect(retry.status).toBe(409);
    expect(retry.body.message).toBe("A request with this Idempotency-Key is still being processed; retry it shortly");
    expect(await storedEvents(sessionId)).toHaveLength(0);
  });

  it("a request that crashed after writing its event is retried without a duplicate", async () => {
    // Prepare: the first attempt claimed the key, wrote the event and died before answering.
    const sessionId = await createTestSession(api, owner.key);
    const key = randomUUID();
    const raw = JSON.stringify({ sessionId, eventType: "tool_call", toolName: "search", estimatedCost: 0.5 });
    const fingerprint = requestFingerprint("live", "POST", "/api/sdk/events", raw);
    const claimed = await claim(liveTenant(), key, fingerprint);
    if (claimed.outcome !== "claimed") throw new Error("expected a claim");
    const written = await createEvent(
      principalFor(owner.orgId),
      { sessionId, eventType: "tool_call", toolName: "search", estimatedCost: 0.5 },
      Date.now(),
      claimed.plannedUlid,
    );
    await release(liveTenant(), key); // its lock has run out

    // Act: the client retries.
    const retry = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: raw,
      headers: { "idempotency-key": key },
    });
    const again = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: raw,
      headers: { "idempotency-key": key },
    });

    // Assess
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(written.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await storedEvents(sessionId)).toHaveLength(1);
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 1, eventCost: 0.5, toolCalls: { search: 1 } });
  });

  it("stores and replays client errors too (a retried 404 is a 404)", async () => {
    const key = randomUUID();
    const body = { sessionId: "ses_01JAAAAAAAAAAAAAAAAAAAAAAA", eventType: "error" };
    const first = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body,
      headers: { "idempotency-key": key },
    });
    const retry = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body,
      headers: { "idempotency-key": key },
    });
    expect(first.status).toBe(404);
    expect(retry.status).toBe(404);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });

  it("replays PATCH, scopes keys per organisation and rejects malformed keys", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const key = randomUUID();
    const patch = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { durationMs: 5 },
      headers: { "idempotency-key": key },
    });
    const replay = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { durationMs: 5 },
      headers: { "idempotency-key": key },
    });
    const other = await createTestKey();
    const otherOrg = await call(api, "POST", "/api/sdk/sessions", {
      key: other.key,
      body: session,
      headers: { "idempotency-key": key },
    });
    const malformed = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: session,
      headers: { "idempotency-key": "has spaces" },
    });

    expect(patch.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(patch.body);
    expect(otherOrg.status).toBe(201);
    expect(otherOrg.headers.get("idempotent-replayed")).toBeNull();
    expect(malformed.status).toBe(400);
    expect(malformed.body.issues).toEqual([
      { path: "Idempotency-Key", message: "Must be 1 to 255 visible ASCII characters" },
    ]);
  });

  describe("records are per tenant (organisation + environment), in separate namespaces (issue 11)", () => {
    it("a test key replaying a live key's Idempotency-Key is processed as its own request, not given the live answer", async () => {
      const testKey = await createTestKey({ orgId: owner.orgId, environment: "test" });
      const liveSession = await createTestSession(api, owner.key);
      const key = randomUUID();
      const body = { durationMs: 7 };
      const live = await call(api, "PATCH", `/api/sdk/sessions/${liveSession}`, {
        key: owner.key,
        body,
        headers: { "idempotency-key": key },
      });

      const fromTest = await call(api, "PATCH", `/api/sdk/sessions/${liveSession}`, {
        key: testKey.key,
        body,
        headers: { "idempotency-key": key },
      });

      expect(live.status).toBe(200);
      expect(fromTest.status).toBe(403);
      expect(fromTest.headers.get("idempotent-replayed")).toBeNull();
      expect(fromTest.body.message).toBe(`This API key has no access to session ${liveSession}`);
    });

    it("a test key cannot pre-claim a key so that the live request with it gets 422", async () => {
      const testKey = await createTestKey({ orgId: owner.orgId, environment: "test" });
      const key = randomUUID();
      const claimedByTest = await call(api, "POST", "/api/sdk/sessions", {
        key: testKey.key,
        body: { ...session, name: "squatter" },
        headers: { "idempotency-key": key },
      });

      const live = await call(api, "POST", "/api/sdk/sessions", {
        key: owner.key,
        body: session,
        headers: { "idempotency-key": key },
      });

      expect(claimedByTest.status).toBe(201);
      expect(live.status).toBe(201);
      expect(live.headers.get("idempotent-replayed")).toBeNull();
      expect(live.body.name).toBe("idempotent");
      expect(live.body.id).not.toBe(claimedByTest.body.id);
    });

    it("a header key `event:step-1` and a batch event's idempotencyKey `step-1` do not collide", async () => {
      const sessionId = await createTestSession(api, owner.key);
      const step = `step-${randomUUID()}`;
      const batch = await call(api, "POST", "/api/sdk/events/batch", {
        key: owner.key,
        body: { events: [{ sessionId, eventType: "state_change", idempotencyKey: step }] },
      });

      const single = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "error" },
        headers: { "idempotency-key": `event:${step}` },
      });

      expect(batch.body.results).toMatchObject([{ status: 201 }]);
      expect(single.status).toBe(201);
      expect(single.headers.get("idempotent-replayed")).toBeNull();
      expect(await storedEvents(sessionId)).toHaveLength(2);
    });
  });
});
