/**
 * Mastra's spans through the dialects and the planner: a whole agent run (the tree `@mastra/otel-exporter` 1.4.0
 * exports: agent_run → model_generation → model_step → model_inference → model_chunk, tools under their step)
 * plans one `llm_decision` per provider call with its tokens once and its turn's messages, and hostile attributes
 * (`__proto__` keys, absurd token counts, a step of another trace) change nothing they should not.
 */
import { describe, expect, it } from "vitest";
import type { GenAiSpan } from "../../functions/domain/genai-span.js";
import { planTraces, withTurnContent } from "../../functions/domain/genai-trace-plan.js";
import { LIMITS } from "../../functions/domain/limits.js";
import type { AttributeValue } from "../../functions/domain/otel-span.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { INFERENCE, readMastra } from "./mastra-dialect-rows.js";
import { id, OTHER_TRACE_ID, span } from "./otlp-fixtures.js";

/** The run's metadata, inherited by every span (as Mastra's spans inherit their parent's). */
const RUN = {
  "mastra.metadata.runId": "run-1",
  "mastra.metadata.resourceId": "user-1",
  "mastra.metadata.threadId": "thread-1",
  "gen_ai.conversation.id": "thread-1",
} as const;

function mastraSpan(spanId: number, parent: number | undefined, type: string, name: string, attributes = {}) {
  return normaliseSpan(
    span({
      spanId: id(spanId),
      ...(parent === undefined ? {} : { parentSpanId: id(parent) }),
      name,
      attributes: { "mastra.span.type": type, ...RUN, ...attributes } as Record<string, AttributeValue>,
    }),
  );
}

/** The spans of one agent run with a tool, as the exporter writes them. */
function agentRun(): GenAiSpan[] {
  return [
    mastraSpan(1, undefined, "agent_run", "invoke_agent Weather Agent", {
      "gen_ai.agent.name": "Weather Agent",
      "gen_ai.agent.id": "weather-agent",
    }),
    mastraSpan(2, 1, "model_generation", "model_generation gpt-4o-mini", {
      "mastra.model_generation.output": '{"text":"Sunny."}',
    }),
    mastraSpan(3, 2, "model_step", "agent_step Weather Agent", {
      "mastra.model_step.input": '[{"role":"user","content":"Weather in Oslo?"}]',
      "mastra.model_step.output":
        '{"text":"","toolCalls":[{"toolCallId":"c1","toolName":"get_weather","args":{"city":"Oslo"}}]}',
      "mastra.metadata.body": '{"usage":{"prompt_tokens":11}}',
    }),
    mastraSpan(4, 3, "model_inference", "chat gpt-4o-mini", {
      ...INFERENCE,
      "gen_ai.agent.name": "Weather Agent",
      "gen_ai.output.messages": '[{"role":"assistant","parts":[{"type":"text","content":""}]}]',
    }),
    mastraSpan(5, 4, "model_chunk", "model_chunk Weather Agent", { "mastra.model_chunk.output": '{"toolName":"x"}' }),
    mastraSpan(6, 3, "tool_call", "execute_tool get_weather", {
      "gen_ai.tool.name": "get_weather",
      "gen_ai.tool.call.arguments": '{"city":"Oslo"}',
      "gen_ai.tool.call.result": '{"forecast":"sunny"}',
    }),
    mastraSpan(7, 2, "model_step", "agent_step Weather Agent", {
      "mastra.model_step.input":
        '[{"role":"user","content":"Weather in Oslo?"},{"role":"tool","content":"[tool-result: get_weather]"}]',
      "mastra.model_step.output": '{"text":"Sunny.","toolCalls":[]}',
    }),
    mastraSpan(8, 7, "model_inference", "chat gpt-4o-mini", {
      ...INFERENCE,
      "gen_ai.usage.input_tokens": 17,
      "gen_ai.usage.output_tokens": 7,
    }),
  ];
}

describe("a Mastra agent run", () => {
  const [plan] = planTraces(agentRun());

  it("is one session under the agent and the resource, the thread as its conversation, the run's metadata only", () => {
    expect(plan?.start).toMatchObject({
      name: "invoke_agent Weather Agent",
      agentName: "Weather Agent",
      userId: "user-1",
      conversationId: "thread-1",
    });
    expect(plan?.start.metadata["mastra.metadata"]).toEqual({
      runId: "run-1",
      resourceId: "user-1",
      threadId: "thread-1",
    });
    expect(plan?.start.metadata["gen_ai.agent.id"]).toBe("weather-agent");
  });

  it("counts each provider call once (model_inference), never the loop or the turn", () => {
    expect(plan?.inference.map((call) => [call.spanId, call.usage.promptTokens, call.usage.completionTokens])).toEqual([
      [id(4), 11, 5],
      [id(8), 17, 7],
    ]);
  });

  it("plans one llm_decision per call with its turn's messages, and the tool call; nothing for loop, turns, chunks", () => {
    const events = plan?.events.map((planned) => [planned.spanId, planned.event.eventType]);
    expect(events).toEqual([
      [id(4), "llm_decision"],
      [id(6), "tool_call"],
      [id(8), "llm_decision"],
    ]);
    const [first, , second] = plan?.events.map((planned) => planned.event) ?? [];
    expect(first?.toolInput?.messages).toEqual([{ role: "user", content: "Weather in Oslo?" }]);
    expect(first?.toolOutput?.messages).toEqual([
      {
        role: "assistant",
        content: "",
        toolCalls: [{ toolCallId: "c1", toolName: "get_weather", args: { city: "Oslo" } }],
      },
    ]);
    expect(first?.reasoning).toBeUndefined();
    expect(first?.usage).toMatchObject({ promptTokens: 11, completionTokens: 5, cacheReadTokens: 4 });
    expect(JSON.stringify(second?.toolInput?.messages)).toContain("[tool-result: get_weather]");
    expect(second?.reasoning).toBe("Sunny.");
  });
});

describe("a model call and its turn", () => {
  it("a call whose turn is not in the request keeps its own messages", () => {
    const call = readMastra("model_inference", INFERENCE, { spanId: id(4), parentSpanId: id(3) });
    const [planned] = withTurnContent([call]);
    expect(planned?.outputMessages).toEqual([{ role: "assistant", parts: [{ type: "text", content: "Sunny." }] }]);
    expect(planned?.answer).toBe("Sunny.");
  });

  it("a turn of another trace with the call's parent id lends it nothing", () => {
    const call = readMastra("model_inference", INFERENCE, { spanId: id(4), parentSpanId: id(3) });
    const stranger = normaliseSpan(
      span({
        traceId: OTHER_TRACE_ID,
        spanId: id(3),
        parentSpanId: id(1),
        name: "agent_step x",
        attributes: { "mastra.span.type": "model_step", "mastra.model_step.input": '[{"role":"user","content":"x"}]' },
      }),
    );
    const [planned] = withTurnContent([call, stranger]);
    expect(planned?.inputMessages).toBeUndefined();
  });

  it("a turn without messages leaves the call's own", () => {
    const call = readMastra("model_inference", INFERENCE, { spanId: id(4), parentSpanId: id(3) });
    const turn = readMastra("model_step", {}, { spanId: id(3) });
    const [planned] = withTurnContent([call, turn]);
    expect(planned?.answer).toBe("Sunny.");
  });
});

describe("hostile Mastra attributes", () => {
  it("`__proto__` in a turn's output or the run's metadata is only a key", () => {
    const turn = readMastra("model_step", {
      "mastra.model_step.output": '{"__proto__":{"toolCalls":[{"evil":true}]},"text":"hi"}',
    });
    expect(turn.outputMessages).toEqual([{ role: "assistant", content: "hi" }]);
    const run = readMastra("agent_run", { "mastra.metadata.__proto__": '{"polluted":true}' }, { root: true });
    const metadata = run.metadata?.["mastra.metadata"] as Record<string, unknown>;
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    const [plan] = planTraces([run]);
    expect(Object.hasOwn(plan?.start.metadata["mastra.metadata"] as object, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).toolCalls).toBeUndefined();
  });

  it("absurd token counts are none, and never reach the session's totals", () => {
    for (const count of [1e30, "18446744073709551616", -5, "NaN", LIMITS.maxTokens + 1]) {
      const call = readMastra("model_inference", { ...INFERENCE, "gen_ai.usage.input_tokens": count });
      expect(call.usage?.promptTokens, String(count)).toBeUndefined();
      expect(call.usage?.completionTokens).toBe(5);
    }
    const at = readMastra("model_inference", { ...INFERENCE, "gen_ai.usage.input_tokens": LIMITS.maxTokens });
    expect(at.usage?.promptTokens).toBe(LIMITS.maxTokens);
  });

  it("a user or thread that is not text names nobody", () => {
    const call = readMastra("model_inference", {
      "mastra.metadata.userId": 7,
      "mastra.metadata.resourceId": '{"id":"x"}',
      "mastra.metadata.threadId": true,
    });
    // The resource is text (a JSON-looking id stays text): the user; the thread is not.
    expect(call).toMatchObject({ userId: '{"id":"x"}', conversationId: undefined });
  });
});
