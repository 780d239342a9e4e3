/**
 * `run.score()`, `tracker.score()` and `tracker.scoreConversation()` against the real local stack: delivered behind the session's start, retried
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

describe("a conversation's scores from the TypeScript client", () => {
  it("scored right after its runs were queued: sent after their starts, read back on the conversation with its totals", async () => {
    const conversationId = `chat-ts-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const errors: AtsError[] = [];
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error) });
    // Turns a second apart: a conversation orders its runs by start.
    const first = await ats.startSession({
      name: "turn 1",
      agentName: "score-client",
      userId: "u-4",
      conversationId,
      startedAt: new Date(Date.now() - 1000),
    });
    first.toolCall({ toolName: "search", toolInput: { q: "refund" } });
    const second = await ats.startSession({
      name: "turn 2",
      agentName: "score-client",
      userId: "u-4",
      conversationId,
    });
    // Queued before either start has been answered: the conversation does not exist yet on the service.
    const resolved = ats.scoreConversation(conversationId, { name: "resolved", value: true, source: "evaluator" });
    const tone = ats.scoreConversation(conversationId, { name: "tone", value: "curt" });
    // An edit of the first verdict, and a score of one run: the totals count the conversation's and its runs'.
    ats.scoreConversation(conversationId, { id: tone, name: "tone", value: "friendly", comment: "on review" });
    second.score({ name: "resolved", value: false });
    await first.end({ status: "completed" });
    await second.end({ status: "completed" });
    const stats = await ats.shutdown();

    expect(errors).toEqual([]);
    expect(stats).toMatchObject({ scoresRecorded: 4, scoresDelivered: 4, scoresFailed: 0 });
    const read = await call(api, "GET", `/api/sdk/conversations/${encodeURIComponent(conversationId)}`, {
      key: owner.key,
    });
    expect(read.status).toBe(200);
    const scores = read.body.scores as Record<string, unknown>[];
    expect(scores).toHaveLength(2);
    expect(Object.fromEntries(scores.map((score) => [score.name, score]))).toEqual({
      resolved: expect.objectContaining({
        id: resolved,
        conversationId,
        sessionId: null,
        eventId: null,
        value: true,
        source: "evaluator",
      }),
      tone: expect.objectContaining({ id: tone, conversationId, sessionId: null, value: "friendly", source: "sdk" }),
    });
    expect(read.body.scoresTruncated).toBe(false);
    const totals = read.body.totals as { scores: Record<string, unknown>[]; scoresComplete: boolean; runs: number };
    expect(totals.runs).toBe(2);
    expect(totals.scoresComplete).toBe(true);
    const byName = Object.fromEntries(totals.scores.map((entry) => [entry.name, entry]));
    expect(byName.resolved).toMatchObject({ count: 2, boolean: { count: 2, trueCount: 1 } });
    expect(byName.tone).toMatchObject({ count: 1, labels: [{ label: "friendly", count: 1 }] });
  });

  it("a conversation no run named: the service's 404 goes to onError with the conversation, nothing is stored", async () => {
    const errors: AtsError[] = [];
    const ats = new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error) });
    const conversationId = `chat-none-${Date.now()}`;
    expect(ats.scoreConversation(conversationId, { name: "resolved", value: true })).toMatch(/^scr_/);
    const stats = await ats.shutdown();
    expect(stats).toMatchObject({ scoresRecorded: 1, scoresDelivered: 0, scoresFailed: 1, retries: 0 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "rejected", status: 404, conversationId, sessionId: undefined });
    expect(errors[0]?.message).toContain(`Conversation ${conversationId} not found`);
  });
});
