/**
 * Usage and model on events, priced at ingest (docs/pricing.md, "Applied at ingest"), over real HTTP on
 * DynamoDB Local: the stored item and the read API carry the cost computed from the price table's row, a
 * reported cost wins, an unknown model stays unpriced, bad usage is a field-level 400 that stores nothing, and
 * events without the fields read back with nulls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelPriceFile, type PriceRow, priceRows } from "../../functions/pricing/price-table.js";
import { eventPageResponse } from "../../functions/schemas/response-schemas.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
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

/** The table's row of `model` in force today (the newest whose effectiveFrom is not after today). */
function rowInForce(model: string, day = new Date().toISOString().slice(0, 10)): PriceRow {
  const row = priceRows(modelPriceFile())
    .filter((each) => each.model === model && each.effectiveFrom <= day)
    .sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? 1 : -1))[0];
  if (row === undefined) throw new Error(`The table has no row of ${model} in force on ${day}`);
  return row;
}

async function readEvents(sessionId: string) {
  const response = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events`, { key: owner.key });
  expect(response.status).toBe(200);
  // The page is exactly what the OpenAPI document says (strict: no field more or less).
  return eventPageResponse.parse(response.body).items;
}

const USAGE = { promptTokens: 1200, completionTokens: 85, totalTokens: 1285, cacheReadTokens: 200 };

describe("POST /api/sdk/events with model and usage", () => {
  it("stores the table's price × usage, costSource table and the price's first day; the read API shows them", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const price = rowInForce("gpt-4o-mini");
    const expected =
      ((USAGE.promptTokens - USAGE.cacheReadTokens) * price.input +
        USAGE.cacheReadTokens * (price.cacheRead ?? price.input) +
        USAGE.completionTokens * price.output) /
      1e6;
    // Act
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: " gpt-4o-mini ", usage: USAGE },
    });
    // Assess
    expect(response.status).toBe(201);
    const [stored] = await storedEvents(sessionId);
    expect(stored).toMatchObject({
      model: "gpt-4o-mini",
      usage: USAGE,
      costSource: "table",
      priceEffectiveFrom: price.effectiveFrom,
    });
    expect(stored?.estimatedCost).toBeCloseTo(expected, 12);
    const [event] = await readEvents(sessionId);
    expect(event).toMatchObject({
      id: response.body.id,
      model: "gpt-4o-mini",
      usage: USAGE,
      costSource: "table",
      priceEffectiveFrom: price.effectiveFrom,
    });
    expect(event?.estimatedCost).toBeCloseTo(expected, 12);
  });

  it("stores only the usage counts sent (null ones left out)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: {
        sessionId,
        eventType: "llm_decision",
        model: "gpt-4o-mini",
        usage: { promptTokens: 10, reasoningTokens: null },
      },
    });
    expect(response.status).toBe(201);
    const [stored] = await storedEvents(sessionId);
    expect(stored?.usage).toEqual({ promptTokens: 10 });
  });

  it("keeps a reported cost: costSource reported, no price day", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: "gpt-4o-mini", usage: USAGE, estimatedCost: 0.25 },
    });
    expect(response.status).toBe(201);
    const [event] = await readEvents(sessionId);
    expect(event).toMatchObject({
      model: "gpt-4o-mini",
      estimatedCost: 0.25,
      costSource: "reported",
      priceEffectiveFrom: null,
    });
  });

  it("leaves a model the table does not know unpriced: estimatedCost null, nothing guessed", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: "our-fine-tuned-llm", usage: USAGE },
    });
    expect(response.status).toBe(201);
    const [stored] = await storedEvents(sessionId);
    expect(stored).toMatchObject({ costSource: "unpriced", model: "our-fine-tuned-llm" });
    expect(stored).not.toHaveProperty("estimatedCost");
    expect(stored).not.toHaveProperty("priceEffectiveFrom");
    const [event] = await readEvents(sessionId);
    expect(event).toMatchObject({ estimatedCost: null, costSource: "unpriced", priceEffectiveFrom: null });
  });

  it("reads back events without model or usage with nulls (and a reported cost as reported)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    for (const body of [
      { sessionId, eventType: "tool_call", toolName: "search" },
      { sessionId, eventType: "tool_call", toolName: "refund", estimatedCost: 0.002 },
    ]) {
      expect((await call(api, "POST", "/api/sdk/events", { key: owner.key, body })).status).toBe(201);
    }
    const events = await readEvents(sessionId);
    const byTool = new Map(events.map((event) => [event.toolName, event]));
    expect(byTool.get("search")).toMatchObject({
      model: null,
      usage: null,
      estimatedCost: null,
      costSource: null,
      priceEffectiveFrom: null,
    });
    expect(byTool.get("refund")).toMatchObject({ estimatedCost: 0.002, costSource: "reported", model: null });
    const stored = await storedEvents(sessionId);
    const search = stored.find((item) => item.toolName === "search");
    expect(search).not.toHaveProperty("costSource");
    expect(search).not.toHaveProperty("usage");
  });

  it.each([
    [{ promptTokens: -1 }, "usage.promptTokens", "Must be an integer from 0 to 1000000000000"],
    [{ completionTokens: 2.5 }, "usage.completionTokens", "Must be an integer from 0 to 1000000000000"],
    [{ cacheReadTokens: "12" }, "usage.cacheReadTokens", "Must be an integer from 0 to 1000000000000"],
    [{ totalTokens: 1e13 }, "usage.totalTokens", "Must be an integer from 0 to 1000000000000"],
    [{ prompt_tokens: 12 }, "usage.prompt_tokens", "Unknown field"],
    [[12], "usage", "Invalid input: expected object, received array"],
  ])("refuses usage %j: 400 naming %s, nothing stored", async (usage, path, message) => {
    const sessionId = await createTestSession(api, owner.key);
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: "gpt-4o-mini", usage },
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`Invalid request body: ${path}`);
    expect(response.body.issues).toEqual([{ path, message }]);
    expect(await storedEvents(sessionId)).toEqual([]);
  });

  it("refuses a blank or overlong model, and a __proto__ usage key, as field-level 400s", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const blank = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: "   " },
    });
    expect(blank.status).toBe(400);
    expect(blank.body.issues).toEqual([{ path: "model", message: "Must not be empty" }]);
    const long = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: "m".repeat(257) },
    });
    expect(long.body.issues).toEqual([{ path: "model", message: "Must be at most 256 characters" }]);
    const proto = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: `{"sessionId":"${sessionId}","eventType":"llm_decision","usage":{"__proto__":{"promptTokens":1}}}`,
    });
    expect(proto.status).toBe(400);
    expect(proto.body.issues).toEqual([{ path: "usage.__proto__", message: "Unknown field" }]);
    expect(await storedEvents(sessionId)).toEqual([]);
  });

  it("takes a __proto__ model name as a name: stored, unpriced", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "llm_decision", model: "__proto__", usage: { promptTokens: 5 } },
    });
    expect(response.status).toBe(201);
    const [event] = await readEvents(sessionId);
    expect(event).toMatchObject({ model: "__proto__", costSource: "unpriced", estimatedCost: null });
  });
});

describe("POST /api/sdk/events/batch with model and usage", () => {
  it("prices each event; a bad usage refuses its event alone with a field-level 400", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const price = rowInForce("gpt-4o-mini");
    const response = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: {
        events: [
          {
            sessionId,
            eventType: "llm_decision",
            model: "gpt-4o-mini",
            usage: { promptTokens: 1000, completionTokens: 10 },
          },
          { sessionId, eventType: "llm_decision", model: "gpt-4o-mini", usage: { promptTokens: -5 } },
          { sessionId, eventType: "llm_decision", model: "gpt-4o-mini", usage: { promptTokens: 1 }, estimatedCost: 1 },
          { sessionId, eventType: "llm_decision", model: "no-such-model", usage: { promptTokens: 1 } },
        ],
      },
    });
    expect(response.status).toBe(200);
    const results = response.body.results as { status: number; error?: { issues?: unknown } }[];
    expect(results.map((result) => result.status)).toEqual([201, 400, 201, 201]);
    expect(results[1]?.error?.issues).toEqual([
      { path: "usage.promptTokens", message: "Must be an integer from 0 to 1000000000000" },
    ]);
    const events = await readEvents(sessionId);
    expect(events).toHaveLength(3);
    const priced = events.find((event) => event.costSource === "table");
    expect(priced?.estimatedCost).toBeCloseTo((1000 * price.input + 10 * price.output) / 1e6, 12);
    expect(priced?.priceEffectiveFrom).toBe(price.effectiveFrom);
    expect(events.find((event) => event.costSource === "reported")?.estimatedCost).toBe(1);
    expect(events.find((event) => event.costSource === "unpriced")).toMatchObject({
      model: "no-such-model",
      estimatedCost: null,
    });
  });
});
