/**
 * One model call seen by two spans in three requests, against the local stack: the client's span first with its
 * message log records (its event takes their messages), then the framework's span around it (its richer content
 * is merged into the stored event: no second event, no second count), then a later log record (the event is
 * rebuilt from its merged content, which keeps the framework's messages). OTLP JSON by hand: two
 * instrumentation scopes, the GenAI conventions and OpenInference.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { createTestKey, readAllEvents, settleCounts, startTestApi } from "../support/fixtures.js";
import { sessionsOf } from "../support/otel-library-run.js";
import { jsonSpan, keyValues } from "../unit/otlp-fixtures.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

async function post(key: string, signal: "traces" | "logs", body: unknown): Promise<void> {
  const response = await fetch(`${api.url}/api/otel/v1/${signal}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(await response.json()).toEqual({});
  await settleCounts();
}

const traces = (scopes: { scope: string; spans: unknown[] }[]) => ({
  resourceSpans: [
    {
      resource: { attributes: keyValues({ "service.name": "enrichment-service" }) },
      scopeSpans: scopes.map(({ scope, spans }) => ({ scope: { name: scope }, spans })),
    },
  ],
});

const logs = (traceId: string, spanId: string, at: number, eventName: string, body: unknown) => ({
  resourceLogs: [
    {
      resource: {},
      scopeLogs: [
        {
          logRecords: [
            {
              timeUnixNano: nanos(at),
              attributes: keyValues({ "event.name": eventName }),
              body,
              traceId,
              spanId,
            },
          ],
        },
      ],
    },
  ],
});

describe("a model call's two spans in three requests, with log records", () => {
  it("one llm_decision: the log records' messages first, the framework's richer ones merged in and kept, tokens once", async () => {
    const owner = await createTestKey();
    const traceId = hex(16);
    const [rootId, wrapperId, innerId] = [hex(8), hex(8), hex(8)];
    const t0 = Date.now() - 60_000;
    const root = jsonSpan({
      traceId,
      spanId: rootId,
      name: "invoke_agent weather-agent",
      startMs: t0,
      endMs: t0 + 5000,
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-agent" },
    });
    const inner = jsonSpan({
      traceId,
      spanId: innerId,
      parentSpanId: rootId,
      name: "chat gpt-4o-mini",
      startMs: t0 + 200,
      endMs: t0 + 800,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 5,
      },
    });
    const wrapper = jsonSpan({
      traceId,
      spanId: wrapperId,
      parentSpanId: rootId,
      name: "ChatOpenAI",
      startMs: t0 + 100,
      endMs: t0 + 900,
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.token_count.prompt": 11,
        "llm.token_count.completion": 5,
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "You are terse.",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "Weather in Oslo?",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Sunny.",
      },
    });
    const userMessage = { kvlistValue: { values: [{ key: "content", value: { stringValue: "Weather?" } }] } };

    // 1. The client's span and its user message record: the event takes the record's message.
    await post(owner.key, "logs", logs(traceId, innerId, t0 + 210, "gen_ai.user.message", userMessage));
    await post(owner.key, "traces", traces([{ scope: "openai-instrumentation", spans: [inner] }]));
    const [session] = await sessionsOf(api, owner.key);
    const first = (await readAllEvents(api, owner.key, String(session?.id))).events;
    expect(first.map((event) => event.eventType)).toEqual(["llm_decision"]);
    expect(first[0]?.toolInput).toMatchObject({ messages: [{ role: "user", content: "Weather?" }] });

    // 2. The framework's span around it, with the root: merged into the stored event, never a second one.
    await post(owner.key, "traces", traces([{ scope: "langchain-instrumentation", spans: [root, wrapper] }]));
    const second = (await readAllEvents(api, owner.key, String(session?.id))).events;
    const decisions = second.filter((event) => event.eventType === "llm_decision");
    expect(decisions.map((event) => event.id)).toEqual([first[0]?.id]);
    expect(decisions[0]).toMatchObject({
      toolInput: {
        provider: "openai",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Weather in Oslo?" },
        ],
      },
      toolOutput: { promptTokens: 11, completionTokens: 5, messages: [{ role: "assistant", content: "Sunny." }] },
      reasoning: "Sunny.",
      usage: { promptTokens: 11, completionTokens: 5, totalTokens: 16 },
    });
    const [ended] = await sessionsOf(api, owner.key);
    expect(ended).toMatchObject({ status: "completed", promptTokens: 11, completionTokens: 5, totalTokens: 16 });

    // 3. A later record of the client's span rebuilds the event from its merged content: the framework's stay.
    const choice = { kvlistValue: { values: [{ key: "index", value: { intValue: "0" } }] } };
    await post(owner.key, "logs", logs(traceId, innerId, t0 + 790, "gen_ai.choice", choice));
    const third = (await readAllEvents(api, owner.key, String(session?.id))).events;
    const rebuilt = third.filter((event) => event.eventType === "llm_decision");
    expect(rebuilt).toHaveLength(1);
    expect(rebuilt[0]?.toolInput).toEqual(decisions[0]?.toolInput);
    expect(rebuilt[0]?.toolOutput).toEqual(decisions[0]?.toolOutput);
  });
});
