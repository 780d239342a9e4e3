/**
 * `run.score()` and `tracker.score()` against the real local stack: delivered behind the session's start, retried
 * without ever adding a second score (the client's id makes a retry a replacement), edits replace, problems go to
 * `onError` and never throw into the agent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { AgentTracker, type AtsError } from "../../sdk/src/index.js";
import { call, createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read"] });
});
afterAll(() => api.close());

async function scoresOf(sessionId: string) {
  const response = await call(api, "GET", `/api/sdk/sessions/${sessionId}/scores`, { key: owner.key });
  expect(response.status).toBe(200);
  return response.body.items as Record<string, unknown>[];
}

describe("scores from the TypeScript client", () => {
  it("a score given right after the start waits for it; an edit with the returned id replaces the score", async () => {
    const errors: AtsError[] = [];
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error) });
    const run = await ats.startSession({ name: "scored", agentName: "score-client", userId: "u-1" });
    // Queued before the session's start has been answered: it must go after it, not be refused as unknown.
    const helpfulness = run.score({ name: "helpfulness", value: 0.4, comment: "first look" });
    const thumbs = run.score({ name: "thumbs", value: false, source: "end_user" });
    await run.end({ status: "completed" });
    // A verdict often comes after the run: allowed, and the same id changes it.
    run.score({ id: helpfulness, name: "helpfulness", value: 0.9, comment: "on review" });
    const stats = await ats.shutdown();
    expect(errors).toEqual([]);
    expect(helpfulness).toMatch(/^scr_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(stats).toMatchObject({ scoresRecorded: 3, scoresDelivered: 3, scoresFailed: 0 });
    const stored = await scoresOf(run.id);
    const byName = Object.fromEntries(stored.map((score) => [score.name, score]));
    expect(stored).toHaveLength(2);
    expect(byName.helpfulness).toMatchObject({ id: helpfulness, value: 0.9, comment: "on review", source: "sdk" });
    expect(byName.thumbs).toMatchObject({ id: thumbs, value: false, valueKind: "boolean", source: "end_user" });
  });

  it("tracker.score judges a session another process started; an answer lost after the write is retried into one score", async () => {
    const agent = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: () => {} });
    const run = await agent.startSession({ name: "judged later", agentName: "score-client", userId: "u-2" });
    await run.end({ status: "completed" });
    await agent.shutdown();

    let lost = 0;
    const errors: AtsError[] = [];
    const evaluator = new AgentTracker({
      apiKey: owner.key,
      baseUrl: api.url,
      onError: (error) => errors.push(error),
      // The first score request reaches the service and is stored, but its answer is lost: the client sees a 503.
      fetch: async (input, init) => {
        const answer = await fetch(input, init);
        if (new URL(String(input)).pathname === "/api/sdk/scores" && lost++ === 0) {
          return new Response(JSON.stringify({ error: "Service Unavailable", message: "lost" }), { status: 503 });
        }
        return answer;
      },
    });
    const id = evaluator.score(run.id, { name: "correct", value: "partially", source: "evaluator" });
    const stats = await evaluator.shutdown();
    expect(errors).toEqual([]);
    expect(lost).toBe(2);
    expect(stats).toMatchObject({ scoresRecorded: 1, scoresDelivered: 1, scoresFailed: 0, retries: 1 });
    expect(await scoresOf(run.id)).toEqual([
      expect.objectContaining({
        id,
        name: "correct",
        value: "partially",
        valueKind: "categorical",
        source: "evaluator",
      }),
    ]);
  });

  it("fields the service would refuse, an unknown session and an unsampled run: reported, nothing thrown, nothing stored", async () => {
    const errors: AtsError[] = [];
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error) });
    const run = await ats.startSession({ name: "bad scores", agentName: "score-client", userId: "u-3" });
    expect(run.score({ name: "", value: 1 })).toBeUndefined();
    expect(run.score({ name: "nan", value: Number.NaN })).toBeUndefined();
    expect(run.score({ name: "object", value: { no: 1 } as unknown as number })).toBeUndefined();
    expect(ats.score("", { name: "x", value: 1 })).toBeUndefined();
    // Well-formed, but the session does not exist: the service's 404 comes back through onError.
    expect(ats.score("ses_01JZZZZZZZZZZZZZZZZZZZZZZZ", { name: "x", value: 1 })).toMatch(/^scr_/);
    await run.end({ status: "completed" });
    const unsampled = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, sampleRate: 0 });
    const skipped = await unsampled.startSession({ name: "unsampled", agentName: "score-client", userId: "u-3" });
    expect(skipped.score({ name: "x", value: 1 })).toBeUndefined();
    const stats = await ats.shutdown();
    expect((await unsampled.shutdown()).requests).toBe(0);
    expect(stats).toMatchObject({ scoresRecorded: 1, scoresDelivered: 0, scoresFailed: 1 });
    expect(errors.map((error) => [error.code, error.message])).toEqual([
      ["usage", "a score needs a name; the score is not sent"],
      ["usage", "score nan: value must be finite; the score is not sent"],
      ["usage", "score object: value must be a number, a boolean or a label; the score is not sent"],
      ["usage", "score needs the id of the session it judges"],
      ["rejected", expect.stringMatching(/^score \(POST .*\/api\/sdk\/scores\): 404 /)],
    ]);
    expect(await scoresOf(run.id)).toEqual([]);
  });
});
