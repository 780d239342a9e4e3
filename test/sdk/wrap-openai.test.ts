/**
 * `wrapOpenAI` with the real `openai` client against a fake OpenAI-compatible
 * server on 127.0.0.1, recording through a real `AgentTracker` into the real
 * local stack, read back through the read API.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { AgentTracker, type AtsError, type PriceTable, wrapOpenAI } from "../../sdk/src/index.js";
import { call, createTestKey, readAllEvents, settleCounts, startTestApi, type TestKey } from "../support/fixtures.js";
import { tableRowInForce } from "../support/otel-library-run.js";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai-server.js";

let api: LocalApi;
let owner: TestKey;
let fake: FakeOpenAI;

beforeAll(async () => {
  [api, owner, fake] = await Promise.all([startTestApi(), createTestKey(), startFakeOpenAI()]);
});
afterAll(async () => {
  await fake.close();
  await api.close();
});

const PRICES: PriceTable = {
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4o-mini": { inputPerMillion: 150_000, outputPerMillion: 600_000 },
};

function openai(): OpenAI {
  return new OpenAI({ apiKey: "sk-fake", baseURL: fake.baseURL, maxRetries: 0 });
}

function tracker(errors: AtsError[], options: Partial<ConstructorParameters<typeof AgentTracker>[0]> = {}) {
  return new AgentTracker({ apiKey: owner.key, baseUrl: api.url, onError: (error) => errors.push(error), ...options });
}

const SESSION = { name: "wrap-openai", agentName: "openai-bot", userId: "u-openai" };

async function recorded(runId: string) {
  const { events } = await readAllEvents(api, owner.key, runId);
  const session = await call(api, "GET", `/api/sdk/sessions/${runId}`, { key: owner.key });
  expect(session.status).toBe(200);
  return { events, session: session.body };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe("wrapOpenAI", () => {
  it("records each chat and responses call as an llm_decision with model, summary, exact tokens and cost; the session's totals are their sums", async () => {
    // Prepare
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const client = openai();
    const wrapped = wrapOpenAI(client, { prices: PRICES });
    let runId = "";

    // Act
    const answers = await ats.trace(SESSION, async (run) => {
      runId = run.id;
      const chat = await wrapped.chat.completions.create(
        {
          model: "gpt-4o-mini",
          messages: [
            { role: "system", content: "You are terse." },
            { role: "user", content: "What is the refund window?" },
          ],
          temperature: 0.2,
          max_completion_tokens: 50,
          tools: [{ type: "function", function: { name: "lookup_policy", parameters: { type: "object" } } }],
        },
        { headers: { "x-fake-usage": "120,30", "x-fake-model": "gpt-4o-mini-2024-07-18" } },
      );
      const reply = await wrapped.responses.create(
        { model: "gpt-4o", instructions: "Answer in French.", input: "Thanks!", max_output_tokens: 40 },
        { headers: { "x-fake-usage": "1000000,2000000", "x-fake-answer": "De rien !" } },
      );
      return { chat, reply };
    });
    await ats.shutdown();

    // Assess: the caller got the responses as openai parses them
    expect(errors).toEqual([]);
    expect(answers.chat.choices[0]?.message.content).toBe("Echo: What is the refund window?");
    expect(answers.reply.output_text).toBe("De rien !");
    expect(Object.keys(client)).toEqual(Object.keys(openai()));
    const { events, session } = await recorded(runId);
    expect(events.map((event) => event.eventType)).toEqual(["llm_decision", "llm_decision"]);
    expect(events[0]).toMatchObject({
      reasoning:
        "system: You are terse.\nuser: What is the refund window?\nassistant: Echo: What is the refund window?",
      toolInput: {
        api: "chat.completions",
        model: "gpt-4o-mini-2024-07-18",
        requestedModel: "gpt-4o-mini",
        messageCount: 2,
        temperature: 0.2,
        maxTokens: 50,
        tools: ["lookup_policy"],
      },
      toolOutput: {
        id: expect.stringMatching(/^chatcmpl-fake\d+$/),
        finishReason: "stop",
        promptTokens: 120,
        completionTokens: 30,
        totalTokens: 150,
      },
      estimatedCost: (120 * 150_000 + 30 * 600_000) / 1e6,
      model: "gpt-4o-mini-2024-07-18",
      usage: { promptTokens: 120, completionTokens: 30, totalTokens: 150, cacheReadTokens: 0, reasoningTokens: 0 },
    });
    expect(events[0]?.toolOutput).toMatchObject({ durationMs: expect.any(Number) });
    // The event spans the call: from its start (occurredAt) for its durationMs, stored as the event's own field.
    expect(events[0]?.durationMs).toBe((events[0]?.toolOutput as { durationMs?: number } | undefined)?.durationMs);
    expect(Date.parse(String(events[0]?.occurredAt)) + Number(events[0]?.durationMs)).toBeLessThanOrEqual(
      Date.parse(String(events[1]?.occurredAt)),
    );
    expect(events[1]).toMatchObject({
      reasoning: "system: Answer in French.\nuser: Thanks!\nassistant: De rien !",
      toolInput: { api: "responses", model: "gpt-4o", messageCount: 1, maxTokens: 40 },
      toolOutput: {
        finishReason: "completed",
        promptTokens: 1_000_000,
        completionTokens: 2_000_000,
        totalTokens: 3_000_000,
      },
      estimatedCost: 2.5 + 20,
      model: "gpt-4o",
      usage: {
        promptTokens: 1_000_000,
        completionTokens: 2_000_000,
        totalTokens: 3_000_000,
        cacheReadTokens: 0,
        reasoningTokens: 0,
      },
    });
    expect(session).toMatchObject({
      status: "completed",
      eventCount: 2,
      promptTokens: 1_000_120,
      completionTokens: 2_000_030,
      totalTokens: 3_000_150,
      estimatedCost: 36 + 22.5,
    });
  });

  it("without a price table of the caller's, each call lands priced by the service's table: estimatedCost = the row × the usage, costSource table; the session's cost is their sum", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai());
    let runId = "";
    await ats.trace({ ...SESSION, name: "priced by the service" }, async (run) => {
      runId = run.id;
      await wrapped.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "Refund window?" }] },
        { headers: { "x-fake-usage": "1200,300", "x-fake-model": "gpt-4o-mini-2024-07-18" } },
      );
      await wrapped.responses.create(
        { model: "gpt-4o", input: "Thanks!" },
        { headers: { "x-fake-usage": "5000,700" } },
      );
    });
    await ats.shutdown({ timeoutMs: 10_000 });
    expect(errors).toEqual([]);
    await settleCounts();
    const { events, session } = await recorded(runId);

    const calls = events.filter((event) => event.eventType === "llm_decision");
    expect(calls.map((event) => [event.model, event.costSource])).toEqual([
      ["gpt-4o-mini-2024-07-18", "table"],
      ["gpt-4o", "table"],
    ]);
    const costs = calls.map((event) => {
      const usage = event.usage as { promptTokens: number; completionTokens: number };
      // The dated snapshot is priced by its undated name's row (docs/pricing.md, "Matching a model name").
      const row = tableRowInForce(
        String(event.model).replace(/-\d{4}-\d{2}-\d{2}$/, ""),
        String(event.occurredAt).slice(0, 10),
      );
      expect(event.priceEffectiveFrom).toBe(row.effectiveFrom);
      return (usage.promptTokens * row.input + usage.completionTokens * row.output) / 1_000_000;
    });
    expect(calls[0]?.estimatedCost as number).toBeCloseTo(costs[0] ?? Number.NaN, 12);
    expect(calls[1]?.estimatedCost as number).toBeCloseTo(costs[1] ?? Number.NaN, 12);
    expect(session.estimatedCost as number).toBeCloseTo((costs[0] ?? 0) + (costs[1] ?? 0), 9);
    expect(session).toMatchObject({ modelCalls: 2, unpricedCalls: 0, promptTokens: 6200, completionTokens: 1000 });
  });

  it("chat streams: every chunk reaches the caller as it would unwrapped, usage is asked for, hidden and recorded; tee and toReadableStream still work", async () => {
    // Prepare
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai(), { prices: PRICES });
    const body = {
      model: "gpt-4o-mini",
      messages: [{ role: "user" as const, content: "Stream me a reply" }],
      stream: true as const,
    };
    const expected = await collect(
      await openai().chat.completions.create(body, { headers: { "x-fake-usage": "9,4" } }),
    );
    let runId = "";

    // Act
    const result = await ats.trace(SESSION, async (run) => {
      runId = run.id;
      const seen = await collect(await wrapped.chat.completions.create(body, { headers: { "x-fake-usage": "9,4" } }));
      const own = await collect(
        await wrapped.chat.completions.create(
          { ...body, stream_options: { include_usage: true } },
          { headers: { "x-fake-usage": "5,5" } },
        ),
      );
      const [left, right] = (await wrapped.chat.completions.create(body, { headers: { "x-fake-usage": "1,1" } })).tee();
      const teed = await Promise.all([collect(left), collect(right)]);
      const readable = (
        await wrapped.chat.completions.create(body, { headers: { "x-fake-usage": "2,2" } })
      ).toReadableStream();
      const lines = (await new Response(readable as ReadableStream).text()).trim().split("\n");
      return { seen, own, teed, lines };
    });
    await ats.shutdown();

    // Assess
    expect(errors).toEqual([]);
    expect(body).not.toHaveProperty("stream_options");
    expect(result.seen).toEqual(expected.map((chunk) => ({ ...chunk, id: result.seen[0]?.id })));
    expect(result.seen.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Echo: Stream me a reply");
    expect(result.own.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 5 } });
    expect(result.own[0]).toHaveProperty("usage", null);
    expect(result.teed[0]).toEqual(result.teed[1]);
    expect(result.teed[0]).toHaveLength(expected.length);
    expect(result.lines).toHaveLength(expected.length);
    const sent = fake.requests.filter((request) => request.body.messages !== undefined).slice(-4);
    expect(sent.map((request) => request.body.stream_options)).toEqual([
      { include_usage: true },
      { include_usage: true },
      { include_usage: true },
      { include_usage: true },
    ]);
    const { events, session } = await recorded(runId);
    expect(events.map((event) => event.toolOutput)).toMatchObject([
      { promptTokens: 9, completionTokens: 4, totalTokens: 13, finishReason: "stop", streamEnd: "completed" },
      { promptTokens: 5, completionTokens: 5, totalTokens: 10, streamEnd: "completed" },
      { promptTokens: 1, completionTokens: 1, totalTokens: 2, streamEnd: "completed" },
      { promptTokens: 2, completionTokens: 2, totalTokens: 4, streamEnd: "completed" },
    ]);
    expect(events[0]).toMatchObject({
      reasoning: "user: Stream me a reply\nassistant: Echo: Stream me a reply",
      toolInput: { api: "chat.completions", model: "gpt-4o-mini", stream: true, messageCount: 1 },
      estimatedCost: (9 * 150_000 + 4 * 600_000) / 1e6,
    });
    expect(session).toMatchObject({ promptTokens: 17, completionTokens: 12, totalTokens: 29 });
  });

  it("chat streams with includeStreamUsage: false are sent as written and recorded without tokens", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai(), { includeStreamUsage: false, prices: PRICES });
    let runId = "";
    await ats.trace(SESSION, async (run) => {
      runId = run.id;
      await collect(
        await wrapped.chat.completions.create({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "no usage" }],
          stream: true,
        }),
      );
    });
    await ats.shutdown();
    expect(errors).toEqual([]);
    expect(fake.requests.at(-1)?.body).not.toHaveProperty("stream_options");
    const { events, session } = await recorded(runId);
    expect(events).toHaveLength(1);
    expect(events[0]?.toolOutput).not.toHaveProperty("promptTokens");
    expect(events[0]).toMatchObject({ model: "gpt-4o-mini" });
    expect(events[0]?.usage ?? null).toBeNull();
    expect(events[0]?.estimatedCost ?? null).toBeNull();
    expect(events[0]?.reasoning).toBe("user: no usage\nassistant: Echo: no usage");
    expect(session.promptTokens ?? null).toBeNull();
  });

  it("responses streams: every event reaches the caller unchanged, usage comes from response.completed; a stream left early records what was seen", async () => {
    // Prepare
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai(), { prices: PRICES });
    const body = { model: "gpt-4o", input: "Tell me a story", stream: true as const };
    const expected = await collect(await openai().responses.create(body, { headers: { "x-fake-usage": "11,6" } }));
    let runId = "";

    // Act
    const result = await ats.trace(SESSION, async (run) => {
      runId = run.id;
      const seen = await collect(await wrapped.responses.create(body, { headers: { "x-fake-usage": "11,6" } }));
      const partial: string[] = [];
      const stream = await wrapped.responses.create(body, {
        headers: { "x-fake-answer": "one two three four five" },
      });
      for await (const event of stream) {
        if (event.type === "response.output_text.delta") partial.push(event.delta);
        if (partial.length === 2) break;
      }
      return { seen, partial };
    });
    await ats.shutdown();

    // Assess
    expect(errors).toEqual([]);
    const withoutIds = (events: unknown[]) => JSON.parse(JSON.stringify(events).replace(/fake\d+/g, "fakeN"));
    expect(withoutIds(result.seen)).toEqual(withoutIds(expected));
    expect(result.partial).toEqual(["one ", "two "]);
    const { events, session } = await recorded(runId);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      reasoning: "user: Tell me a story\nassistant: Echo: Tell me a story",
      toolInput: { api: "responses", model: "gpt-4o", stream: true },
      toolOutput: { promptTokens: 11, completionTokens: 6, totalTokens: 17, streamEnd: "completed" },
      estimatedCost: (11 * 2.5 + 6 * 10) / 1e6,
    });
    expect(events[1]).toMatchObject({
      reasoning: "user: Tell me a story\nassistant: one two",
      toolOutput: { streamEnd: "abandoned" },
    });
    expect(events[1]?.toolOutput).not.toHaveProperty("promptTokens");
    expect(session).toMatchObject({ promptTokens: 11, completionTokens: 6, totalTokens: 17 });
  });

  it("captureContent: false records counts, tokens and cost but no message text", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai(), { captureContent: false, prices: PRICES });
    let runId = "";
    await ats.trace(SESSION, async (run) => {
      runId = run.id;
      await wrapped.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "my secret diagnosis" }],
      });
      await collect(
        await wrapped.chat.completions.create({
          model: "gpt-4o",
          messages: [{ role: "user", content: "my secret diagnosis" }],
          stream: true,
        }),
      );
      await wrapped.responses.create({ model: "gpt-4o", input: "my secret diagnosis" });
    });
    await ats.shutdown();
    expect(errors).toEqual([]);
    const { events } = await recorded(runId);
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(event).not.toHaveProperty("reasoning");
      expect(JSON.stringify(event)).not.toMatch(/secret|diagnosis|Echo/);
      expect(event).toMatchObject({ toolInput: { messageCount: 1 }, toolOutput: { promptTokens: 7 } });
    }
  });

  it("an OpenAI error is re-thrown unchanged and recorded as an error event with the model", async () => {
    // Prepare
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai());
    const request = { model: "nope", messages: [{ role: "user" as const, content: "hi" }] };
    const unwrappedError = await openai()
      .chat.completions.create(request, { headers: { "x-fake-status": "400" } })
      .catch((error: unknown) => error);
    let runId = "";

    // Act
    const caught = await ats
      .trace(SESSION, async (run) => {
        runId = run.id;
        const failure = await wrapped.chat.completions
          .create(request, { headers: { "x-fake-status": "400" } })
          .catch((error: unknown) => error);
        await expect(
          wrapped.responses.create({ model: "gpt-4o", input: "x" }, { headers: { "x-fake-status": "500" } }),
        ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
        return failure;
      })
      .catch((error: unknown) => error);
    await ats.shutdown();

    // Assess
    expect(errors).toEqual([]);
    expect(caught).toBeInstanceOf(OpenAI.BadRequestError);
    expect(caught).toMatchObject({ status: 400, code: "model_not_found", message: (unwrappedError as Error).message });
    expect(Object.getPrototypeOf(caught)).toBe(Object.getPrototypeOf(unwrappedError));
    const { events } = await recorded(runId);
    expect(events.map((event) => event.eventType)).toEqual(["error", "error"]);
    expect(events[0]).toMatchObject({
      reasoning: `${(caught as Error).name}: ${(caught as Error).message}`,
      toolInput: { api: "chat.completions", model: "nope", status: 400, code: "model_not_found" },
    });
    expect(events[1]).toMatchObject({ toolInput: { api: "responses", model: "gpt-4o", status: 500 } });
  });

  it("a stream cut mid-way re-throws to the caller and records the partial answer and an error", async () => {
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai());
    let runId = "";
    const seen: string[] = [];
    const failure = await ats
      .trace(SESSION, async (run) => {
        runId = run.id;
        const stream = await wrapped.chat.completions.create(
          { model: "gpt-4o", messages: [{ role: "user", content: "cut" }], stream: true },
          { headers: { "x-fake-break-after": "3", "x-fake-answer": "alpha beta gamma delta" } },
        );
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "");
      })
      .catch((error: unknown) => error);
    await ats.shutdown();
    expect(failure).toBeInstanceOf(Error);
    expect(seen.join("")).toBe("alpha beta ");
    const { events } = await recorded(runId);
    expect(events.map((event) => event.eventType)).toEqual(["llm_decision", "error"]);
    expect(events[0]).toMatchObject({
      reasoning: "user: cut\nassistant: alpha beta",
      toolOutput: { streamEnd: "failed" },
    });
    expect(events[1]).toMatchObject({ toolInput: { api: "chat.completions", model: "gpt-4o" } });
  });

  it("outside any run a call passes through untouched and records nothing; options.run records without a trace; withResponse still works", async () => {
    // Prepare
    const errors: AtsError[] = [];
    const ats = tracker(errors);
    const wrapped = wrapOpenAI(openai());

    // Act: no run
    const plain = await wrapped.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "alone" }],
      stream: true,
    });
    const chunks = await collect(plain);
    const outside = fake.requests.at(-1);
    // Act: an explicit run, and withResponse
    const run = await ats.startSession(SESSION);
    const bound = wrapOpenAI(openai(), { run });
    const { data, response, request_id } = await bound.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "with response" }] })
      .withResponse();
    await run.end();
    await ats.shutdown();

    // Assess
    expect(errors).toEqual([]);
    expect(outside?.body).not.toHaveProperty("stream_options");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(data.choices[0]?.message.content).toBe("Echo: with response");
    expect(response.status).toBe(200);
    expect(request_id).toMatch(/^req_fake/);
    expect(ats.stats().eventsRecorded).toBe(1);
    const { events, session } = await recorded(run.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ reasoning: "user: with response\nassistant: Echo: with response" });
    expect(session).toMatchObject({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
  });

  it("the tracker's mask sees the llm events and can redact them", async () => {
    const errors: AtsError[] = [];
    const masked: string[] = [];
    const ats = tracker(errors, {
      mask: (event) => {
        if (event.eventType !== "llm_decision") return event;
        masked.push(event.reasoning ?? "");
        return { ...event, reasoning: (event.reasoning ?? "").replace(/\d{4}-\d{4}/g, "[card]") };
      },
    });
    const wrapped = wrapOpenAI(openai());
    let runId = "";
    await ats.trace(SESSION, async (run) => {
      runId = run.id;
      await wrapped.responses.create({ model: "gpt-4o", input: "charge 1234-5678" });
    });
    await ats.shutdown();
    expect(errors).toEqual([]);
    expect(masked).toEqual(["user: charge 1234-5678\nassistant: Echo: charge 1234-5678"]);
    const { events } = await recorded(runId);
    expect(events[0]).toMatchObject({ reasoning: "user: charge [card]\nassistant: Echo: charge [card]" });
  });
});
