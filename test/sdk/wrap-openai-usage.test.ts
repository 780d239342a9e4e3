/**
 * What the client sends for a model call: `model` and `usage` as the event's own fields (from `wrapOpenAI`, with
 * the real `openai` client against the fake OpenAI server, and from `run.llmCall` and the other methods), and
 * `estimatedCost` only when the caller priced the call. Asserted on the request bodies the tracker sends (a
 * scripted service at the `fetch` boundary), not on the service's pricing.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PriceTable, wrapOpenAI } from "../../sdk/src/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai-server.js";
import { scriptedTracker, sentEvents } from "./support/scripted-fetch.js";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const SESSION = { name: "usage", agentName: "openai-bot", userId: "u-usage" };
const PRICES: PriceTable = {
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
};
/** Usage with cached and reasoning tokens: 1,200 prompt (1,000 cached), 300 completion (120 reasoning). */
const HEADERS = { "x-fake-usage": "1200,300", "x-fake-cached": "1000", "x-fake-reasoning": "120" };
const EXACT = {
  promptTokens: 1200,
  completionTokens: 300,
  totalTokens: 1500,
  cacheReadTokens: 1000,
  reasoningTokens: 120,
};

function openai(): OpenAI {
  return new OpenAI({ apiKey: "sk-fake", baseURL: fake.baseURL, maxRetries: 0 });
}

async function drain(stream: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of stream) count++;
  return count;
}

/** Runs `act` in a traced run and returns the events and the session's end as sent. */
async function sent(act: (client: OpenAI) => Promise<void>, options: Parameters<typeof wrapOpenAI>[1] = {}) {
  const { ats, errors, requests } = scriptedTracker();
  const client = wrapOpenAI(openai(), options);
  let runId = "";
  await ats.trace(SESSION, async (run) => {
    runId = run.id;
    await act(client);
  });
  await ats.shutdown();
  expect(errors).toEqual([]);
  const end = requests.find((request) => request.path === `/api/sdk/sessions/${runId}`)?.body;
  return { events: sentEvents(requests), end };
}

describe("wrapOpenAI sends model and usage", () => {
  it("chat and responses, not streamed: the response's model and OpenAI's counts exactly, cached and reasoning tokens included; no estimatedCost without a price table", async () => {
    // Act
    const { events, end } = await sent(async (client) => {
      await client.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] },
        { headers: { ...HEADERS, "x-fake-model": "gpt-4o-mini-2024-07-18" } },
      );
      await client.responses.create(
        { model: "o3", input: "Think" },
        { headers: { ...HEADERS, "x-fake-model": "o3-2025-04-16" } },
      );
    });

    // Assess
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ eventType: "llm_decision", model: "gpt-4o-mini-2024-07-18" });
    expect(events[0]?.usage).toEqual(EXACT);
    expect(events[1]).toMatchObject({ eventType: "llm_decision", model: "o3-2025-04-16" });
    expect(events[1]?.usage).toEqual(EXACT);
    for (const event of events) expect(event).not.toHaveProperty("estimatedCost");
    // The old content stays where it was.
    expect(events[0]).toMatchObject({
      toolInput: { api: "chat.completions", model: "gpt-4o-mini-2024-07-18", requestedModel: "gpt-4o-mini" },
      toolOutput: {
        promptTokens: 1200,
        completionTokens: 300,
        totalTokens: 1500,
        cachedTokens: 1000,
        reasoningTokens: 120,
      },
    });
    // The service prices the events: the end carries the token totals but no partial cost.
    expect(end).toMatchObject({ promptTokens: 2400, completionTokens: 600, totalTokens: 3000 });
    expect(end).not.toHaveProperty("estimatedCost");
  });

  it("chat streams (usage asked for by the wrapper, or by the caller) and responses streams send the last chunk's usage exactly", async () => {
    // Act
    const { events } = await sent(async (client) => {
      const body = {
        model: "gpt-4o-mini",
        messages: [{ role: "user" as const, content: "Stream" }],
        stream: true as const,
      };
      await drain(await client.chat.completions.create(body, { headers: HEADERS }));
      await drain(
        await client.chat.completions.create(
          { ...body, stream_options: { include_usage: true } },
          { headers: { ...HEADERS, "x-fake-model": "gpt-4o-mini-2024-07-18" } },
        ),
      );
      await drain(await client.responses.create({ model: "o3", input: "Stream", stream: true }, { headers: HEADERS }));
      // A chat stream whose usage chunk has no details: only the counts it has.
      await drain(await client.chat.completions.create(body, { headers: { "x-fake-usage": "9,4" } }));
    });

    // Assess
    expect(fake.requests.slice(-4).map((request) => request.body.stream_options)).toEqual([
      { include_usage: true },
      { include_usage: true },
      undefined,
      { include_usage: true },
    ]);
    expect(events.map((event) => [event.model, event.usage])).toEqual([
      ["gpt-4o-mini", EXACT],
      ["gpt-4o-mini-2024-07-18", EXACT],
      ["o3", EXACT],
      ["gpt-4o-mini", { promptTokens: 9, completionTokens: 4, totalTokens: 13 }],
    ]);
    expect(events.map((event) => (event.toolOutput as Record<string, unknown>).streamEnd)).toEqual([
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
    for (const event of events) expect(event).not.toHaveProperty("estimatedCost");
  });

  it("a chat stream sent without include_usage (includeStreamUsage: false) sends its model and no usage", async () => {
    const { events, end } = await sent(
      async (client) => {
        await drain(
          await client.chat.completions.create({
            model: "gpt-4o-mini",
            messages: [{ role: "user", content: "no usage" }],
            stream: true,
          }),
        );
      },
      { includeStreamUsage: false },
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ model: "gpt-4o-mini" });
    expect(events[0]).not.toHaveProperty("usage");
    expect(events[0]).not.toHaveProperty("estimatedCost");
    expect(end).not.toHaveProperty("promptTokens");
  });

  it("with a price table the caller's price is sent as estimatedCost (beside model and usage); a model it does not price is left to the service", async () => {
    // Act
    const { events, end } = await sent(
      async (client) => {
        await client.chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "priced" }] },
          { headers: { ...HEADERS, "x-fake-model": "gpt-4o-mini-2024-07-18" } },
        );
        await drain(
          await client.chat.completions.create(
            { model: "gpt-4o-mini", messages: [{ role: "user", content: "priced" }], stream: true },
            { headers: HEADERS },
          ),
        );
        await client.responses.create({ model: "o3", input: "not in my table" }, { headers: HEADERS });
      },
      { prices: PRICES },
    );

    // Assess: 200 fresh prompt tokens at 0.15, 1,000 cached at 0.075, 300 completion at 0.6 (per million)
    const mine = (200 * 0.15 + 1000 * 0.075 + 300 * 0.6) / 1e6;
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ model: "gpt-4o-mini-2024-07-18", usage: EXACT });
    expect(events[0]?.estimatedCost).toBeCloseTo(mine, 15);
    expect(events[1]).toMatchObject({ model: "gpt-4o-mini", usage: EXACT });
    expect(events[1]?.estimatedCost).toBeCloseTo(mine, 15);
    expect(events[2]).toMatchObject({ model: "o3", usage: EXACT });
    expect(events[2]).not.toHaveProperty("estimatedCost");
    // One event left to the service: the end sends no partial sum.
    expect(end).not.toHaveProperty("estimatedCost");
  });

  it("a cost function wins and is sent; when every call is priced by the caller the end carries their sum", async () => {
    const { events, end } = await sent(
      async (client) => {
        await client.chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "one" }] },
          { headers: HEADERS },
        );
        await client.responses.create({ model: "o3", input: "two" }, { headers: HEADERS });
      },
      { prices: PRICES, cost: (model) => (model === "o3" ? 0.125 : undefined) },
    );
    expect(events.map((event) => event.estimatedCost)).toEqual([(200 * 0.15 + 1000 * 0.075 + 300 * 0.6) / 1e6, 0.125]);
    expect(events.map((event) => event.usage)).toEqual([EXACT, EXACT]);
    expect(end?.estimatedCost).toBeCloseTo(0.125 + (200 * 0.15 + 1000 * 0.075 + 300 * 0.6) / 1e6, 12);
  });
});

describe("model and usage on the run's methods", () => {
  it("llmCall sends model and usage (flat counts and usage merged, usage winning); bad counts and unknown keys are left out, the event is still sent", async () => {
    // Prepare
    const { ats, errors, requests } = scriptedTracker();
    const run = await ats.startSession(SESSION);

    // Act
    run.llmCall({ model: "  gpt-4o  ", promptTokens: 10, completionTokens: 5 });
    run.llmCall({
      model: "claude-sonnet-4-5",
      promptTokens: 99,
      usage: { promptTokens: 100, completionTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 30 },
    });
    run.llmCall({
      model: "o3",
      usage: {
        promptTokens: -1,
        completionTokens: 2.5,
        totalTokens: 1_000_000_000_001,
        reasoningTokens: 7,
        bogus: 3,
      } as never,
    });
    run.llmCall({ model: "x".repeat(257), usage: { promptTokens: Number.NaN } });
    run.llmCall({ model: "   ", totalTokens: 1_000_000_000_000 });
    await run.end();
    await ats.shutdown();

    // Assess
    expect(errors).toEqual([]);
    const events = sentEvents(requests);
    expect(events.map((event) => [event.model, event.usage])).toEqual([
      ["gpt-4o", { promptTokens: 10, completionTokens: 5 }],
      ["claude-sonnet-4-5", { promptTokens: 100, completionTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 30 }],
      ["o3", { reasoningTokens: 7 }],
      [undefined, undefined],
      [undefined, { totalTokens: 1_000_000_000_000 }],
    ]);
    expect(events[3]).not.toHaveProperty("model");
    expect(events[3]).not.toHaveProperty("usage");
    // toolInput/toolOutput as before (the given name, the counts with a computed total).
    expect(events[0]).toMatchObject({
      toolInput: { model: "  gpt-4o  " },
      toolOutput: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    });
    const end = requests.find((request) => request.path === `/api/sdk/sessions/${run.id}`)?.body;
    expect(end).toMatchObject({ promptTokens: 110, completionTokens: 25, totalTokens: 1_000_000_000_135 });
  });

  it("toolCall, decision, stateChange and error take model and usage too; they add to the run's totals", async () => {
    const { ats, errors, requests } = scriptedTracker();
    const run = await ats.startSession(SESSION);
    run.toolCall({ toolName: "embed", model: "text-embedding-3-small", usage: { promptTokens: 8, totalTokens: 8 } });
    run.decision({
      reasoning: "pick",
      model: "gpt-4o",
      usage: { promptTokens: 3, completionTokens: 2 },
      estimatedCost: 0.5,
    });
    run.stateChange({ to: "done", model: "gpt-4o" });
    run.error({ message: "quota", model: "gpt-4o", usage: { promptTokens: 1 } });
    await run.end();
    await ats.shutdown();
    expect(errors).toEqual([]);
    const events = sentEvents(requests);
    expect(events.map((event) => [event.eventType, event.model, event.usage, event.estimatedCost])).toEqual([
      ["tool_call", "text-embedding-3-small", { promptTokens: 8, totalTokens: 8 }, undefined],
      ["llm_decision", "gpt-4o", { promptTokens: 3, completionTokens: 2 }, 0.5],
      ["state_change", "gpt-4o", undefined, undefined],
      ["error", "gpt-4o", { promptTokens: 1 }, undefined],
    ]);
    const end = requests.find((request) => request.path === `/api/sdk/sessions/${run.id}`)?.body;
    expect(end).toMatchObject({ promptTokens: 12, completionTokens: 2, totalTokens: 14 });
    expect(end).not.toHaveProperty("estimatedCost");
    expect(run.usage).toMatchObject({ estimatedCost: 0.5, hasServerPricedEvents: true });
  });

  it("the mask receives model and usage and can remove them", async () => {
    const { ats, errors, requests } = scriptedTracker(undefined, {
      mask: (event) => {
        const { usage: _usage, ...rest } = event;
        return { ...rest, model: "redacted-model" };
      },
    });
    await ats.trace(SESSION, (run) => run.llmCall({ model: "gpt-4o", promptTokens: 1 }));
    await ats.shutdown();
    expect(errors).toEqual([]);
    const [event] = sentEvents(requests);
    expect(event).toMatchObject({ model: "redacted-model" });
    expect(event).not.toHaveProperty("usage");
  });
});
