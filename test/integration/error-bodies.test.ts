/**
 * Issue 11: error bodies were unbounded — a 1 MB body of unknown fields produced a 6.4 MB 400, over
 * Lambda's 6 MB response limit (a 502 on AWS). Now at most 20 issues are listed, with their count.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
});
afterAll(() => api.close());

/** A JSON object of `count` unknown fields (`"u0000001":0,…`). */
function unknownFields(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`u${String(index).padStart(7, "0")}`, 0]));
}

describe("error bodies are bounded", () => {
  it("a 1 MB batch body of unknown fields is a small 400 that lists 20 issues and counts them all", async () => {
    const fields = unknownFields(80_000);
    const body = JSON.stringify({ events: [], ...fields });
    expect(body.length).toBeGreaterThan(1_000_000 - 100_000);

    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body });

    expect(response.status).toBe(400);
    expect(response.text.length).toBeLessThan(10_000);
    expect(response.body.issues).toHaveLength(20);
    expect(response.body.issueCount).toBe(80_001); // the unknown fields and the empty `events`
    expect(response.body.message).toMatch(/^Invalid request body: .+ and 79996 more$/);
  });

  it("a batch of 100 events with 700 unknown fields each answers 100 small refusals", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const events = Array.from({ length: 100 }, () => ({ sessionId, eventType: "state_change", ...unknownFields(700) }));

    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });

    expect(response.status).toBe(200);
    const results = response.body.results as { status: number; error: { issues: unknown[]; issueCount: number } }[];
    expect(results).toHaveLength(100);
    for (const result of results) {
      expect(result.status).toBe(400);
      expect(result.error.issues).toHaveLength(20);
      expect(result.error.issueCount).toBe(700);
    }
    expect(response.text.length).toBeLessThan(250_000);
  });
});
