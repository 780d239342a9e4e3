/** Events over real HTTP: creation, counters written atomically with the event, tenancy, late flushes. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

describe("POST /api/sdk/events", () => {
  it("records a tool call: 201 with the spec's response fields; payloads stored intact", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const toolInput = { query: "refund policy", filters: { lang: ["en", "de"] }, __proto__: "kept as data" };

    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: {
        sessionId,
        eventType: "tool_call",
        toolName: "search_docs",
        toolInput,
        toolOutput: { hits: 3 },
        reasoning: "The customer asked about refunds.",
        estimatedCost: 0.002,
      },
    });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/),
      sessionId,
      eventType: "tool_call",
      toolName: "search_docs",
      createdAt: expect.stringMatching(/Z$/),
    });
    const [stored] = await storedEvents(sessionId);
    expect(stored).toMatchObject({
      id: response.body.id,
      orgId: owner.orgId,
      reasoning: "The customer asked about refunds.",
    });
    expect(JSON.parse(String(stored?.toolOutputJson))).toEqual({ hits: 3 });
    expect(String(stored?.toolInputJson)).toContain('"filters":{"lang":["en","de"]}');
  });

  it("records a decision with alternatives and confidence; toolName is null when not sent", async () => {
    const sessionId = await createTestSession(api, owner.key);

    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", alternativesConsidered: ["escalate", "refund"], confidence: 0.82 },
    });

    expect(response.status).toBe(201);
    expect(response.body.toolName).toBeNull();
    const [stored] = await storedEvents(sessionId);
    expect(stored).toMatchObject({ alternativesConsidered: ["escalate", "refund"], confidence: 0.82 });
  });

  it("keeps eventCount and the summed event cost exact under concurrent writes", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const costs = Array.from({ length: 40 }, (_, index) => (index % 4) * 0.25);

    const responses = await Promise.all(
      costs.map((estimatedCost) =>
        call(api, "POST", "/api/sdk/events", {
          key: owner.key,
          body: { sessionId, eventType: "state_change", estimatedCost },
        }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(costs.map(() => 201));
    const session = await storedSession(sessionId);
    expect(session?.eventCount).toBe(40);
    expect(session?.eventCost).toBeCloseTo(15, 10);
    expect(await storedEvents(sessionId)).toHaveLength(40);
  });

  it("never sees 404 for an event posted right after its session was created", async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const sessionId = await createTestSession(api, owner.key);
      const response = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "error" },
      });
      expect(response.status).toBe(201);
    }
  });

  it("accepts events for a session in a final state (late flush) and counts them", async () => {
    const sessionId = await createTestSession(api, owner.key);
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body: { status: "completed" } });

    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "error" },
    });

    expect(response.status).toBe(201);
    expect(await storedSession(sessionId)).toMatchObject({ status: "completed", eventCount: 1 });
  });

  it("rejects an event type outside the four with 400", async () => {
    const sessionId = await createTestSession(api, owner.key);

    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "thought" },
    });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: "eventType", message: "Must be one of: tool_call, llm_decision, state_change, error" },
    ]);
  });

  it("requires sessionId and eventType (400 naming both)", async () => {
    const response = await call(api, "POST", "/api/sdk/events", { key: owner.key, body: { toolName: "x" } });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: "sessionId", message: "Required" },
      { path: "eventType", message: "Required" },
    ]);
  });

  it("rejects out-of-range and mistyped fields with 400", async () => {
    const sessionId = await createTestSession(api, owner.key);

    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: {
        sessionId,
        eventType: "llm_decision",
        confidence: 1.5,
        estimatedCost: -0.01,
        alternativesConsidered: ["ok", 3],
        toolOutput: "plain text",
      },
    });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: "toolOutput", message: "Must be a JSON object" },
      { path: "alternativesConsidered.1", message: "Must be a string" },
      { path: "confidence", message: "Must be a number from 0 to 1" },
      { path: "estimatedCost", message: "Must be a number from 0 to 1000000" },
    ]);
    expect(await storedEvents(sessionId)).toHaveLength(0);
  });

  it("returns 404 for an unknown session and writes nothing", async () => {
    const stranger = await createTestKey();
    const sessionId = "ses_01JAAAAAAAAAAAAAAAAAAAAAAB";

    const response = await call(api, "POST", "/api/sdk/events", {
      key: stranger.key,
      body: { sessionId, eventType: "error" },
    });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: "Not Found", message: `Session ${sessionId} not found` });
    expect(await storedEvents(sessionId)).toHaveLength(0);
    expect((await itemsOfOrganisation(stranger.orgId)).filter((item) => item.entity === "event")).toHaveLength(0);
  });

  it("returns 403 to another organisation's key; no event and no counter change", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const stranger = await createTestKey();
    const before = await storedSession(sessionId);

    const response = await call(api, "POST", "/api/sdk/events", {
      key: stranger.key,
      body: { sessionId, eventType: "tool_call", estimatedCost: 5 },
    });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: "Forbidden",
      message: `This API key has no access to session ${sessionId}`,
    });
    expect(await storedSession(sessionId)).toEqual(before);
    expect(await storedEvents(sessionId)).toHaveLength(0);
  });
});
