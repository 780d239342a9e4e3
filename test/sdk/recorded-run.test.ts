/**
 * The SDK against the real local stack (the Lambda handlers behind the local
 * adapter, DynamoDB Local, s3rver): what a run records reads back exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { AgentTracker, type AtsError, currentRun, wrapTool } from "../../sdk/src/index.js";
import { call, createTestKey, readAllEvents, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

function tracker(errors: AtsError[], options: Partial<ConstructorParameters<typeof AgentTracker>[0]> = {}) {
  return new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error), ...options });
}

describe("a recorded run", () => {
  it("joins the conversation it names: its turns read back in order on the conversation", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const conversationId = `sdk-chat-${crypto.randomUUID()}`;
    const first = await ats.startSession({ name: "turn 1", agentName: "chat-bot", userId: "u-1", conversationId });
    await first.end({ status: "completed" });
    const second = await ats.startSession({ name: "turn 2", agentName: "chat-bot", userId: "u-1", conversationId });
    await second.end({ status: "completed" });
    await ats.shutdown();

    const conversation = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, { key: owner.key });
    expect(errors).toEqual([]);
    expect(conversation.status, conversation.text).toBe(200);
    expect(conversation.body).toMatchObject({ id: conversationId, runCount: 2, totals: { completed: 2 } });
    expect((conversation.body.runs as { id: string; conversationId: string }[]).map((run) => run.id)).toEqual([
      first.id,
      second.id,
    ]);
  });

  it("reads back exactly: the session, its end and every event in order", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const run = await ats.startSession({
      name: "Refund request",
      agentName: "support-bot",
      userId: "customer-42",
      metadata: { plan: "pro", constructor: "kept" },
    });
    run.decision({
      reasoning: "Look up the order first",
      alternativesConsidered: ["refund", "escalate"],
      confidence: 0.8,
      estimatedCost: 0.25,
    });
    run.toolCall({
      toolName: "lookup_order",
      toolInput: { orderId: "A-1" },
      toolOutput: { status: "delivered" },
      estimatedCost: 0.5,
    });
    run.stateChange({ from: "investigating", to: "refunding", details: { amount: 42 } });
    run.error(new TypeError("card declined"));
    run.llmCall({
      model: "gpt-test",
      reasoning: "user: refund? → assistant: yes",
      promptTokens: 100,
      completionTokens: 20,
    });
    const endedAt = Date.now();
    await run.end({ customMetrics: { retries: 1 } });
    await ats.shutdown();
    expect(errors).toEqual([]);

    const session = await call(api, "GET", `/api/sdk/sessions/${run.id}`, { key: owner.key });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({
      id: run.id,
      name: "Refund request",
      agentName: "support-bot",
      userId: "customer-42",
      metadata: { plan: "pro", constructor: "kept" },
      status: "completed",
      success: true,
      eventCount: 5,
      eventCost: 0.75,
      promptTokens: 100,
      completionTokens: 20,
      totalTokens: 120,
      customMetrics: { retries: 1 },
    });
    // The LLM call is left for the service to price (model and usage, no cost): the end sends no partial sum, and
    // the session's cost is the sum of its events' costs, the service's price of the call included.
    expect(session.body.estimatedCost).toBe(session.body.eventCost);
    expect(session.body.durationMs).toBeGreaterThanOrEqual(0);
    // The end's time is the client's, taken when end() was called, not the delivery's.
    expect(Math.abs(Date.parse(String(session.body.completedAt)) - endedAt)).toBeLessThan(50);

    const { events } = await readAllEvents(api, owner.key, run.id);
    expect(events.map((event) => event.eventType)).toEqual([
      "llm_decision",
      "tool_call",
      "state_change",
      "error",
      "llm_decision",
    ]);
    expect(events[0]).toMatchObject({
      reasoning: "Look up the order first",
      alternativesConsidered: ["refund", "escalate"],
      confidence: 0.8,
    });
    expect(events[1]).toMatchObject({
      toolName: "lookup_order",
      toolInput: { orderId: "A-1" },
      toolOutput: { status: "delivered" },
    });
    expect(events[2]).toMatchObject({ toolInput: { from: "investigating", to: "refunding", amount: 42 } });
    expect(events[3]).toMatchObject({ reasoning: "TypeError: card declined" });
    expect(events[4]).toMatchObject({
      model: "gpt-test",
      usage: { promptTokens: 100, completionTokens: 20 },
      toolInput: { model: "gpt-test" },
      toolOutput: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
    });
    for (const event of events) expect(typeof event.occurredAt).toBe("string");
  });

  it("trace: the current run through awaits, wrapTool records input, output and errors, a throw fails the session and is re-thrown", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const search = wrapTool("search", async (query: { q: string }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { hits: query.q.length };
    });
    const charge = wrapTool("charge", (amount: number) => {
      if (amount > 10) throw new RangeError(`amount ${amount} over the limit`);
      return "ok";
    });
    let runId = "";
    await expect(
      ats.trace({ name: "nested", agentName: "trace-bot", userId: "u-1" }, async (run) => {
        runId = run.id;
        await search({ q: "refund" });
        await Promise.resolve();
        expect(currentRun()).toBe(run);
        charge(5);
        charge(50);
      }),
    ).rejects.toThrow("amount 50 over the limit");
    expect(currentRun()).toBeUndefined();
    await ats.shutdown();
    expect(errors).toEqual([]);

    const session = await call(api, "GET", `/api/sdk/sessions/${runId}`, { key: owner.key });
    expect(session.body).toMatchObject({
      status: "failed",
      success: false,
      failureReason: "RangeError: amount 50 over the limit",
      eventCount: 4,
      toolCalls: { search: 1, charge: 2 },
      toolErrors: { charge: 1 },
    });
    const { events } = await readAllEvents(api, owner.key, runId);
    expect(events.map((event) => [event.eventType, event.toolName])).toEqual([
      ["tool_call", "search"],
      ["tool_call", "charge"],
      ["tool_call", "charge"],
      ["error", "charge"],
    ]);
    expect(events[0]).toMatchObject({ toolInput: { q: "refund" }, toolOutput: { result: { hits: 6 } } });
    expect(events[1]).toMatchObject({ toolInput: { args: [5] }, toolOutput: { result: "ok" } });
    expect(events[2]).toMatchObject({
      toolOutput: { error: { name: "RangeError", message: "amount 50 over the limit" } },
    });
  });
});
