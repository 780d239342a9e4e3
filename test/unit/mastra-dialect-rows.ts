/**
 * One check per row of docs/otel.md's Mastra table, keyed by the row's first cell (joined to the other dialects'
 * in test/unit/genai-dialect-rows.ts). The spans are shaped as `@mastra/otel-exporter` 1.4.0 writes them (seen
 * in test/integration/otel-mastra.test.ts): `mastra.span.type`, the GenAI names it adds, and `mastra.metadata.*`.
 */
import { expect } from "vitest";
import type { GenAiSpan } from "../../functions/domain/genai-span.js";
import { planTraces } from "../../functions/domain/genai-trace-plan.js";
import type { AttributeValue } from "../../functions/domain/otel-span.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { id, span } from "./otlp-fixtures.js";

type Attributes = Record<string, AttributeValue>;

const ROOT = id(1);

/** A child span of ROOT (or the root itself) of Mastra's `type`, read through the dialects. */
export function readMastra(
  type: string,
  attributes: Attributes = {},
  options: { name?: string; root?: boolean; spanId?: string; parentSpanId?: string } = {},
): GenAiSpan {
  const spanId = options.spanId ?? (options.root === true ? ROOT : id(2));
  return normaliseSpan(
    span({
      spanId,
      ...(options.root === true ? {} : { parentSpanId: options.parentSpanId ?? ROOT }),
      name: options.name ?? "a span",
      attributes: { "mastra.span.type": type, ...attributes },
    }),
  );
}

/** A `model_inference` span as the exporter writes it. */
export const INFERENCE = {
  "gen_ai.operation.name": "chat",
  "gen_ai.request.model": "gpt-4o-mini",
  "gen_ai.provider.name": "openai",
  "gen_ai.usage.input_tokens": 11,
  "gen_ai.usage.output_tokens": 5,
  "gen_ai.usage.cache_read.input_tokens": 4,
  "gen_ai.usage.reasoning_tokens": 0,
  "gen_ai.output.messages": '[{"role":"assistant","parts":[{"type":"text","content":"Sunny."}]}]',
} as const;

export const mastraRows: Record<string, () => void> = {
  "`mastra.span.type` `agent_run`": () => {
    const run = readMastra(
      "agent_run",
      { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Weather Agent", "gen_ai.agent.id": "weather" },
      { root: true, name: "invoke_agent Weather Agent" },
    );
    expect(run).toMatchObject({
      dialect: "mastra",
      role: "agent",
      operation: "invoke_agent",
      agentName: "Weather Agent",
      agentId: "weather",
    });
    expect(readMastra("agent_run", {}, { name: "invoke_agent planner" }).agentName).toBe("planner");
  },
  "`mastra.span.type` `workflow_run`": () => {
    const run = readMastra(
      "workflow_run",
      { "gen_ai.operation.name": "invoke_workflow" },
      { name: "invoke_workflow nightly" },
    );
    expect(run).toMatchObject({ role: "agent", operation: "invoke_workflow", agentName: "nightly" });
    expect(readMastra("workflow_run", {}, { name: "invoke_workflow " }).agentName).toBeUndefined();
  },
  "`mastra.span.type` `workflow_step`": () => {
    const step = readMastra(
      "workflow_step",
      { "mastra.workflow_step.input": '{"city":"Oslo"}', "mastra.workflow_step.output": '{"ok":true}' },
      { name: "workflow step: fetch" },
    );
    expect(step).toMatchObject({ role: "event", toolArguments: { city: "Oslo" }, toolResult: { ok: true } });
    const [plan] = planTraces([step]);
    expect(plan?.events.map((planned) => planned.event)).toEqual([
      expect.objectContaining({
        eventType: "state_change",
        reasoning: "workflow step: fetch",
        toolInput: { city: "Oslo" },
      }),
    ]);
  },
  "`mastra.span.type` `model_inference` (one provider call)": () => {
    const call = readMastra("model_inference", INFERENCE);
    expect(call).toMatchObject({
      dialect: "mastra",
      role: "inference",
      operation: "chat",
      model: "gpt-4o-mini",
      provider: "openai",
      answer: "Sunny.",
    });
    // Mastra's inputTokens includes the cached ones: read as they are.
    expect(call.usage).toMatchObject({ promptTokens: 11, completionTokens: 5, totalTokens: 16, cacheReadTokens: 4 });
  },
  "`mastra.span.type` `model_step` (one turn of the agent's loop)": () => {
    const turn = readMastra("model_step", {
      "gen_ai.operation.name": "agent_step",
      "mastra.model_step.input": '[{"role":"user","content":"Weather in Oslo?"}]',
      "mastra.model_step.output":
        '{"text":"","toolCalls":[{"toolCallId":"c1","toolName":"get_weather","args":{"city":"Oslo"}}]}',
    });
    expect(turn).toMatchObject({
      role: "step",
      inputMessages: [{ role: "user", content: "Weather in Oslo?" }],
      outputMessages: [{ role: "assistant", content: "", toolCalls: [{ toolName: "get_weather" }] }],
    });
    expect(turn.answer).toBeUndefined();
    expect(turn.usage).toBeUndefined();
    const [plan] = planTraces([turn]);
    expect(plan?.events).toEqual([]);
    expect(readMastra("model_step", { "mastra.model_step.output": "plain" }).outputMessages).toEqual([
      { role: "assistant", content: "plain" },
    ]);
  },
  "`mastra.span.type` `model_generation` (the agent's loop)": () => {
    const loop = readMastra("model_generation", { "gen_ai.operation.name": "model_generation" });
    expect(loop).toMatchObject({ role: "other", operation: "model_generation" });
    const legacy = readMastra("model_generation", INFERENCE);
    expect(legacy).toMatchObject({ role: "inference", operation: "chat" });
    expect(legacy.usage).toMatchObject({ promptTokens: 11 });
  },
  "`mastra.span.type` `rag_embedding`": () => {
    const embedding = readMastra("rag_embedding", { "gen_ai.usage.input_tokens": 9 });
    expect(embedding).toMatchObject({ role: "inference", operation: "embeddings" });
    expect(embedding.usage).toMatchObject({ promptTokens: 9 });
  },
  "`mastra.span.type` `tool_call`, `mcp_tool_call`, `provider_tool_call` or `client_tool_call`": () => {
    for (const type of ["tool_call", "mcp_tool_call", "provider_tool_call"]) {
      const tool = readMastra(type, {
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.arguments": '{"city":"Oslo"}',
        "gen_ai.tool.call.result": '{"forecast":"sunny"}',
      });
      expect(tool).toMatchObject({
        role: "tool",
        toolName: "get_weather",
        toolArguments: { city: "Oslo" },
        toolResult: { forecast: "sunny" },
      });
    }
    expect(readMastra("tool_call", {}, { name: "execute_tool lookup" }).toolName).toBe("lookup");
    const client = readMastra(
      "client_tool_call",
      { "mastra.client_tool_call.input": '{"q":1}', "mastra.client_tool_call.output": "done" },
      { name: "client_tool_call confirm" },
    );
    expect(client).toMatchObject({ role: "tool", toolName: "confirm", toolArguments: { q: 1 }, toolResult: "done" });
  },
  "any other type (`model_chunk`, `processor_run`, `memory_operation`, `workflow_conditional`…)": () => {
    for (const type of ["model_chunk", "processor_run", "memory_operation", "workflow_conditional"]) {
      expect(readMastra(type, { "gen_ai.operation.name": type })).toMatchObject({
        dialect: "mastra",
        role: "other",
        operation: type,
      });
    }
    // A type named like an inherited property is only an unknown type.
    expect(readMastra("__proto__")).toMatchObject({ role: "other", operation: "__proto__" });
    expect(readMastra("toString").role).toBe("other");
  },
  "`mastra.metadata.userId`, else `mastra.metadata.resourceId`": () => {
    const both = { "mastra.metadata.userId": "u1", "mastra.metadata.resourceId": "r1" };
    expect(readMastra("tool_call", both).userId).toBe("u1");
    expect(readMastra("model_chunk", { "mastra.metadata.resourceId": "r1" }).userId).toBe("r1");
    expect(readMastra("model_chunk", { "mastra.metadata.resourceId": 42 }).userId).toBeUndefined();
  },
  "`mastra.metadata.threadId`, else `mastra.metadata.sessionId`": () => {
    expect(
      readMastra("model_inference", { "mastra.metadata.threadId": "t1", "mastra.metadata.sessionId": "s1" })
        .conversationId,
    ).toBe("t1");
    expect(readMastra("tool_call", { "mastra.metadata.sessionId": "s1" }).conversationId).toBe("s1");
    expect(readMastra("tool_call", { "gen_ai.conversation.id": "t2" }).conversationId).toBe("t2");
  },
  "`mastra.metadata.*` and `mastra.tags` of an `agent_run` or `workflow_run` span": () => {
    const attributes = {
      "mastra.metadata.runId": "run-1",
      "mastra.metadata.resourceId": "r1",
      "mastra.metadata.plan": "pro",
      "mastra.tags": '["beta"]',
    };
    expect(readMastra("agent_run", attributes, { root: true }).metadata).toEqual({
      "mastra.metadata": { runId: "run-1", resourceId: "r1", plan: "pro" },
      "mastra.tags": ["beta"],
    });
    // A step's metadata carries the provider's raw answer: never the run's.
    expect(readMastra("model_step", { ...attributes, "mastra.metadata.body": "{}" }).metadata).toBeUndefined();
    expect(readMastra("agent_run", {}).metadata).toBeUndefined();
  },
  "Mastra's error (`errorInfo`): status ERROR with an `exception` event and `error.type`": () => {
    const failed = normaliseSpan(
      span({
        spanId: id(3),
        parentSpanId: ROOT,
        name: "execute_tool get_weather",
        attributes: { "mastra.span.type": "tool_call", "gen_ai.tool.name": "get_weather", "error.type": "TOOL_FAILED" },
        status: { code: 2, message: "weather service unavailable" },
        events: [{ name: "exception", attributes: { "exception.message": "weather service unavailable" } }],
      }),
    );
    const root = normaliseSpan(
      span({
        spanId: ROOT,
        name: "invoke_agent a",
        attributes: { "mastra.span.type": "agent_run" },
        status: { code: 2, message: "run failed" },
      }),
    );
    const [plan] = planTraces([root, failed]);
    expect(
      plan?.events.map((planned) => [planned.event.eventType, planned.event.toolName, planned.event.reasoning]),
    ).toEqual([
      ["error", undefined, "run failed"],
      ["tool_call", "get_weather", undefined],
      ["error", "get_weather", "weather service unavailable"],
    ]);
    expect(plan?.end).toMatchObject({ status: "failed", failureReason: "run failed" });
  },
};
