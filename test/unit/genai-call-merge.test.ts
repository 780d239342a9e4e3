/**
 * One model call seen by two spans (a framework's span around the client library's): the merge of their content
 * field by field, the tokens counted once (functions/domain/genai-call-merge.ts), as the planner applies it
 * within one request and withoutRecordedPairs across requests.
 */
import { describe, expect, it } from "vitest";
import { callUsage, mergedDecisionContent, richer } from "../../functions/domain/genai-call-merge.js";
import { planTraces as planNormalised, withoutRecordedPairs } from "../../functions/domain/genai-trace-plan.js";
import type { AttributeValue, OtelSpan } from "../../functions/domain/otel-span.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { id, span, T0 } from "./otlp-fixtures.js";

const planTraces = (spans: readonly OtelSpan[]) => planNormalised(spans.map(normaliseSpan));

const ROOT = id(1);
const WRAPPER = id(2);
const INNER = id(3);

const root = span({
  spanId: ROOT,
  name: "invoke_agent weather",
  attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather" },
  endMs: T0 + 5000,
});

/** OpenInference LLM span attributes: messages flattened, usage as `llm.token_count.*`. */
function llm(
  messages: { input?: [string, string][]; output?: [string, string][] },
  usage?: { prompt: number; completion: number },
  extra: Record<string, AttributeValue> = {},
): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = { "openinference.span.kind": "LLM", ...extra };
  for (const [side, list] of [
    ["input", messages.input],
    ["output", messages.output],
  ] as const) {
    for (const [index, [role, content]] of (list ?? []).entries()) {
      attributes[`llm.${side}_messages.${index}.message.role`] = role;
      attributes[`llm.${side}_messages.${index}.message.content`] = content;
    }
  }
  if (usage !== undefined) {
    attributes["llm.token_count.prompt"] = usage.prompt;
    attributes["llm.token_count.completion"] = usage.completion;
  }
  return attributes;
}

/** A LangChain-like wrapper with the messages and no usage, around a client span with usage and no content. */
function pair(options: { wrapperUsage?: boolean; innerUsage?: boolean } = {}) {
  const wrapper = span({
    spanId: WRAPPER,
    parentSpanId: ROOT,
    name: "ChatOpenAI",
    startMs: T0 + 100,
    endMs: T0 + 900,
    attributes: llm(
      {
        input: [
          ["system", "You are terse."],
          ["user", "Weather in Oslo?"],
        ],
        output: [["assistant", "Sunny."]],
      },
      options.wrapperUsage === true ? { prompt: 30, completion: 9 } : undefined,
      { "llm.model_name": "gpt-4o-mini" },
    ),
  });
  const inner = span({
    spanId: INNER,
    parentSpanId: WRAPPER,
    name: "OpenAI Chat Completions",
    startMs: T0 + 200,
    endMs: T0 + 800,
    attributes: llm({}, options.innerUsage === false ? undefined : { prompt: 11, completion: 5 }, {
      "llm.model_name": "gpt-4o-mini",
      "llm.system": "openai",
      "llm.finish_reason": "stop",
    }),
  });
  return { wrapper, inner };
}

describe("richer (which of two values says more)", () => {
  it("takes a value over none, more entries over fewer, then the larger; keeps the first of equals", () => {
    expect(richer(undefined, "a")).toBe("a");
    expect(richer("a", undefined)).toBe("a");
    expect(richer("", "b")).toBe("b");
    expect(richer([1, 2, 3], [{ long: "x".repeat(100) }])).toEqual([1, 2, 3]);
    expect(richer([{ a: 1 }], [{ a: 1, b: 2 }])).toEqual([{ a: 1, b: 2 }]);
    const first = { same: 1 };
    expect(richer(first, { same: 2 })).toBe(first);
  });
});

describe("callUsage (the tokens of a call seen by two spans, counted once)", () => {
  it("is the inner span's when it has counts, else the wrapper's; the cost of the other when the one has none", () => {
    expect(callUsage({ promptTokens: 11, completionTokens: 5 }, { promptTokens: 30 })).toEqual({
      promptTokens: 11,
      completionTokens: 5,
      cost: undefined,
    });
    expect(callUsage({ cost: 0.5 }, { promptTokens: 30, totalTokens: 39 })).toEqual({
      promptTokens: 30,
      totalTokens: 39,
      cost: 0.5,
    });
    expect(callUsage(undefined, undefined)).toEqual({ cost: undefined });
  });
});

describe("a model call and its wrapper in one request (planTraces)", () => {
  it("is one llm_decision under the inner span's key: the wrapper's messages, the inner's provider and tokens once", () => {
    const { wrapper, inner } = pair({ wrapperUsage: true });
    const [plan] = planTraces([root, wrapper, inner]);
    const decisions = plan?.events.filter((planned) => planned.event.eventType === "llm_decision") ?? [];
    expect(decisions.map((planned) => planned.idempotencyKey)).toEqual([`otel:${INNER}:0`]);
    const decision = decisions[0];
    expect(decision?.merged).toBe(true);
    expect(decision?.event.toolInput).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Weather in Oslo?" },
      ],
    });
    expect(decision?.event.toolOutput).toMatchObject({
      finishReasons: "stop",
      promptTokens: 11,
      completionTokens: 5,
      messages: [{ role: "assistant", content: "Sunny." }],
    });
    expect(decision?.event.reasoning).toBe("Sunny.");
    expect(decision?.event.usage).toEqual({ promptTokens: 11, completionTokens: 5, totalTokens: 16 });
    expect(plan?.inference).toEqual([
      expect.objectContaining({
        spanId: INNER,
        parentSpanId: WRAPPER,
        startMs: T0 + 200,
        endMs: T0 + 800,
        usage: expect.objectContaining({ promptTokens: 11, completionTokens: 5 }),
      }),
    ]);
  });

  it("counts the wrapper's tokens when the inner span has none, still once", () => {
    const { wrapper, inner } = pair({ wrapperUsage: true, innerUsage: false });
    const [plan] = planTraces([root, wrapper, inner]);
    expect(plan?.inference.map((call) => [call.spanId, call.usage.promptTokens, call.usage.completionTokens])).toEqual([
      [INNER, 30, 9],
    ]);
    const decision = plan?.events.find((planned) => planned.event.eventType === "llm_decision");
    expect(decision?.event.usage).toEqual({ promptTokens: 30, completionTokens: 9, totalTokens: 39 });
  });

  it("merges every wrapper of a chain of three, and none into the calls of a wrapper of two", () => {
    const { wrapper, inner } = pair();
    const outer = span({
      spanId: id(9),
      parentSpanId: ROOT,
      name: "agent step",
      attributes: llm({}, undefined, { "llm.invocation_parameters": '{"temperature":0.2}' }),
    });
    const chain = planTraces([root, outer, { ...wrapper, parentSpanId: id(9) }, inner]);
    const merged = chain[0]?.events.filter((planned) => planned.event.eventType === "llm_decision");
    expect(merged?.map((planned) => planned.spanId)).toEqual([INNER]);
    expect(merged?.[0]?.event.toolInput).toMatchObject({ temperature: 0.2, provider: "openai" });
    expect(merged?.[0]?.event.toolInput?.messages).toHaveLength(2);

    const retry = { ...inner, spanId: id(4) };
    const [twice] = planTraces([root, wrapper, inner, retry]);
    const decisions = twice?.events.filter((planned) => planned.event.eventType === "llm_decision") ?? [];
    expect(decisions.map((planned) => planned.spanId)).toEqual([INNER, id(4)]);
    expect(
      decisions.every((planned) => planned.merged === undefined && planned.event.toolInput?.messages === undefined),
    ).toBe(true);
    expect(twice?.inference.map((call) => call.usage.promptTokens)).toEqual([11, 11]);
  });

  it("terminates on spans naming each other as parents (no event of their own, nothing counted)", () => {
    const a = span({
      spanId: id(5),
      parentSpanId: id(6),
      name: "a",
      attributes: llm({}, { prompt: 1, completion: 1 }),
    });
    const b = span({
      spanId: id(6),
      parentSpanId: id(5),
      name: "b",
      attributes: llm({}, { prompt: 1, completion: 1 }),
    });
    const [plan] = planTraces([root, a, b]);
    expect(plan?.inference).toEqual([]);
  });
});

describe("a model call and its wrapper in two requests (withoutRecordedPairs)", () => {
  it("drops the wrapper recorded second and enriches the inner call's stored event with its content", () => {
    const { wrapper, inner } = pair();
    const [first] = planTraces([inner]);
    const eventId = "evt-inner";
    const recorded = new Map([[INNER, { parentSpanId: WRAPPER, eventId }]]);
    const [second] = planTraces([root, wrapper]);
    const revised = withoutRecordedPairs(second as NonNullable<typeof second>, recorded);
    expect(revised.inference).toEqual([]);
    expect(revised.events.filter((planned) => planned.event.eventType === "llm_decision")).toEqual([]);
    expect(revised.enrichments).toHaveLength(1);
    const enrichment = revised.enrichments?.[0];
    expect(enrichment).toMatchObject({ spanId: WRAPPER, eventId });

    // The stored inner event takes the wrapper's messages and keeps its own counts.
    const stored = first?.events[0]?.event;
    const merged = mergedDecisionContent(
      { toolInput: stored?.toolInput, toolOutput: stored?.toolOutput, reasoning: stored?.reasoning },
      enrichment?.content ?? {},
    );
    expect(merged.toolInput?.messages).toHaveLength(2);
    expect(merged.toolInput?.provider).toBe("openai");
    expect(merged.toolOutput).toMatchObject({ promptTokens: 11, completionTokens: 5, durationMs: 600 });
    expect(merged.reasoning).toBe("Sunny.");
    expect(mergedDecisionContent(merged, enrichment?.content ?? {})).toEqual(merged);
  });

  it("drops an inner call whose wrapper was recorded first and enriches the wrapper's event", () => {
    const { inner } = pair();
    const [plan] = planTraces([inner]);
    const revised = withoutRecordedPairs(
      plan as NonNullable<typeof plan>,
      new Map([[WRAPPER, { parentSpanId: ROOT, eventId: "evt-wrapper" }]]),
    );
    expect(revised.inference).toEqual([]);
    expect(revised.enrichments?.map((each) => [each.spanId, each.eventId])).toEqual([[INNER, "evt-wrapper"]]);
  });

  it("enriches no event of a wrapper whose several inner calls were recorded, and counts it not", () => {
    const { wrapper } = pair();
    const [plan] = planTraces([root, wrapper]);
    const revised = withoutRecordedPairs(
      plan as NonNullable<typeof plan>,
      new Map([
        [INNER, { parentSpanId: WRAPPER, eventId: "a" }],
        [id(4), { parentSpanId: WRAPPER, eventId: "b" }],
      ]),
    );
    expect(revised.inference).toEqual([]);
    expect(revised.enrichments).toEqual([]);
  });
});

describe("mergedDecisionContent (a stored event enriched by its partner's content)", () => {
  it("takes each field's richer value, keeps the counts it restates, and own keys only", () => {
    const partner = JSON.parse(
      '{"messages":[{"role":"user","content":"hi"}],"__proto__":{"polluted":true},"promptTokens":99}',
    ) as Record<string, never>;
    const merged = mergedDecisionContent(
      { toolInput: { model: "m" }, toolOutput: { promptTokens: 3, finishReasons: ["stop"] } },
      { toolInput: partner, toolOutput: partner, reasoning: "answer" },
    );
    expect(merged.toolInput?.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(Object.hasOwn(merged.toolInput ?? {}, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(merged.toolOutput).toMatchObject({ promptTokens: 3, finishReasons: ["stop"] });
    expect(merged.reasoning).toBe("answer");
  });
});

describe("the same call seen by two unlinked spans, planned (planTraces, withoutRecordedPairs)", () => {
  it("in one request: one llm_decision under the client span's key, the framework's messages, tokens once", () => {
    const wrapper = {
      ...span({
        spanId: WRAPPER,
        parentSpanId: ROOT,
        name: "ChatOpenAI",
        startMs: T0 + 100,
        endMs: T0 + 900,
        attributes: llm(
          { input: [["user", "Weather in Oslo?"]] },
          { prompt: 11, completion: 5 },
          {
            "llm.model_name": "gpt-4o-mini",
          },
        ),
      }),
      scope: "@arizeai/openinference-instrumentation-langchain",
    };
    const { inner } = pair();
    const client = { ...inner, parentSpanId: ROOT, scope: "@arizeai/openinference-instrumentation-openai" };
    const [plan] = planTraces([root, wrapper, client]);
    expect(plan?.inference.map((call) => [call.spanId, call.usage.promptTokens])).toEqual([[INNER, 11]]);
    const decisions = plan?.events.filter((planned) => planned.event.eventType === "llm_decision") ?? [];
    expect(decisions.map((planned) => planned.idempotencyKey)).toEqual([`otel:${INNER}:0`]);
    expect(decisions[0]?.event.toolInput?.messages).toEqual([{ role: "user", content: "Weather in Oslo?" }]);

    // Across requests: the client's span recorded first, the framework's later enriches its event.
    const recorded = new Map([
      [INNER, { parentSpanId: ROOT, eventId: "evt", startMs: T0 + 200, endMs: T0 + 800, scope: client.scope }],
    ]);
    const [later] = planTraces([root, wrapper]);
    const revised = withoutRecordedPairs(later as NonNullable<typeof later>, recorded);
    expect(revised.inference).toEqual([]);
    expect(revised.enrichments?.map((each) => [each.spanId, each.eventId])).toEqual([[WRAPPER, "evt"]]);
  });
});
