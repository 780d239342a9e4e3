/**
 * `tracker.feedbackToken()` against the real local stack: the backend mints a token with its key, the browser's
 * request posts a thumbs-down with it, the key reads it back; a refusal throws `AtsDeliveryError` with the status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { AgentTracker, AtsDeliveryError } from "../../sdk/src/index.js";
import { call, createTestKey, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read"] });
});
afterAll(() => api.close());

describe("tracker.feedbackToken", () => {
  it("mints a token the browser posts a thumbs-down with; the key reads the score back", async () => {
    // Prepare
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: () => {} });
    const run = await ats.startSession({ name: "feedback", agentName: "feedback-client", userId: "u-1" });
    await run.end({ status: "completed" });
    await ats.flush();

    // Act
    const minted = await ats.feedbackToken(run.id, { expiresInSeconds: 600, names: ["thumbs"] });
    const posted = await fetch(`${api.url}/api/public/feedback`, {
      method: "POST",
      headers: { authorization: `Bearer ${minted.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "thumbs", value: false }),
    });
    await ats.shutdown();
    const read = await call(api, "GET", `/api/sdk/sessions/${run.id}/scores`, { key: owner.key });

    // Assess
    expect(minted.token).toMatch(/^atsf_/);
    expect(minted.tokenId).toMatch(/^fbt_/);
    expect(Date.parse(minted.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);
    expect(posted.status).toBe(201);
    expect(read.body.items).toEqual([
      expect.objectContaining({
        name: "thumbs",
        value: false,
        source: "end_user",
        author: { kind: "feedbackToken", id: minted.tokenId },
      }),
    ]);
  });

  it("throws AtsDeliveryError with the status and the service's message when minting is refused", async () => {
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: () => {} });
    const stranger = await createTestKey({ scopes: ["sessions:write", "scores:write"] });
    const foreign = await createTestSession(api, stranger.key);

    const unknown = await ats.feedbackToken("ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF").catch((error: unknown) => error);
    const other = await ats.feedbackToken(foreign).catch((error: unknown) => error);
    const tooLong = await ats.feedbackToken(foreign, { expiresInSeconds: 86_401 }).catch((error: unknown) => error);
    await ats.shutdown();

    expect(unknown).toBeInstanceOf(AtsDeliveryError);
    expect(unknown).toMatchObject({ status: 404, operation: "feedbackToken", attempts: 1 });
    expect((unknown as Error).message).toBe(
      "No feedback token for session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF (404): Session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF not found",
    );
    expect(other).toMatchObject({ status: 403 });
    expect(tooLong).toMatchObject({ status: 400 });
  });
});
