/**
 * How the spans of one trace become a session and its events under the GenAI semantic conventions
 * (functions/otel/dialects/genai-semconv.ts read by functions/domain/genai-trace-plan.ts, genai-messages.ts;
 * the table in docs/otel.md): every row of the mapping, under the current and the ≤ v1.36 attribute names.
 * The planner takes normalised spans; the helpers below normalise the raw spans of each case first.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answerText, attributeJson, spanMessages } from "../../functions/domain/genai-messages.js";
import type { InferenceUsage } from "../../functions/domain/genai-span.js";
import {
  AGENT_CLAIM,
  ANONYMOUS_USER,
  ANSWER_CHARS,
  spanEvents as normalisedSpanEvents,
  traceEnd as normalisedTraceEnd,
  traceStart as normalisedTraceStart,
  planTraces as planNormalised,
  sessionTotals,
  storableName,
  UNKNOWN_AGENT,
  USER_CLAIM,
} from "../../functions/domain/genai-trace-plan.js";
import { LIMITS } from "../../functions/domain/limits.js";
import type { AttributeValue, OtelSpan } from "../../functions/domain/otel-span.js";
import { genAiSemconv } from "../../functions/otel/dialects/genai-semconv.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { id, OTHER_TRACE_ID, span, T0, TRACE_ID } from "./otlp-fixtures.js";

const planTraces = (spans: readonly OtelSpan[]) => planNormalised(spans.map(normaliseSpan));
const traceStart = (traceId: string, spans: readonly OtelSpan[]) =>
  normalisedTraceStart(traceId, spans.map(normaliseSpan));
const traceEnd = (root: OtelSpan) => normalisedTraceEnd(normaliseSpan(root));
const spanEvents = (subject: OtelSpan, isRoot: boolean) => normalisedSpanEvents(normaliseSpan(subject), isRoot);
/** The usage the GenAI conventions read from a model call's attributes. */
const inferenceUsage = (attributes: Map<string, AttributeValue>): InferenceUsage => {
  const usage = genAiSemconv.read(
    span({ spanId: id(9), name: "chat m", attributes: Object.fromEntries(attributes) }),
  ).usage;
  return usage ?? {};
};
/** The usage of a plan's model calls. */
const usageOf = (plan: ReturnType<typeof planTraces>[number] | undefined) =>
  (plan?.inference ?? []).map((call) => call.usage);

const ROOT = id(1);

function root(overrides: Partial<Parameters<typeof span>[0]> = {}): OtelSpan {
  return span({
    spanId: ROOT,
    name: "invoke_agent travel-planner",
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel-planner" },
    endMs: T0 + 5000,
    ...overrides,
  });
}

function chat(spanId: string, attributes: Record<string, AttributeValue> = {}, overrides = {}): OtelSpan {
  return span({
    spanId,
    parentSpanId: ROOT,
    name: "chat gpt-4o",
    startMs: T0 + 100,
    endMs: T0 + 1100,
    attributes: { "gen_ai.operation.name": "chat", ...attributes },
    ...overrides,
  });
}

function tool(spanId: string, attributes: Record<string, AttributeValue> = {}, overrides = {}): OtelSpan {
  return span({
    spanId,
    parentSpanId: ROOT,
    name: "execute_tool get_weather",
    startMs: T0 + 2000,
    endMs: T0 + 2100,
    attributes: { "gen_ai.operation.name": "execute_tool", ...attributes },
    ...overrides,
  });
}

function onlyEvent(subject: OtelSpan, isRoot = false) {
  const events = spanEvents(subject, isRoot);
  expect(events).toHaveLength(1);
  return (events[0] as (typeof events)[number]).event;
}

describe("the session's start (traceStart)", () => {
  it("takes the root span's name, its gen_ai.agent.name, user.id and start; metadata names the trace", () => {
    const start = traceStart(TRACE_ID, [
      chat(id(2), { "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o" }),
      root({ attributes: { "gen_ai.agent.name": "travel-planner", "user.id": "u-42" } }),
    ]);
    expect(start).toEqual({
      traceId: TRACE_ID,
      name: "invoke_agent travel-planner",
      agentName: "travel-planner",
      userId: "u-42",
      agentClaim: AGENT_CLAIM.rootSpan,
      userClaim: USER_CLAIM.rootSpan,
      startedAtMs: T0,
      provisionalName: false,
      genericRoot: false,
      metadata: {
        resource: {},
        "otel.trace_id": TRACE_ID,
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
      },
    });
  });

  it("reads gen_ai.agent.name from the root first, then agent spans, then any span", () => {
    const subAgent = span({
      spanId: id(3),
      parentSpanId: ROOT,
      name: "invoke_agent helper",
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper" },
    });
    const named = chat(id(2), { "gen_ai.agent.name": "from-chat" });
    expect(traceStart(TRACE_ID, [named, subAgent, root()]).agentName).toBe("travel-planner");
    expect(traceStart(TRACE_ID, [named, subAgent]).agentName).toBe("helper");
    expect(traceStart(TRACE_ID, [named]).agentName).toBe("from-chat");
  });

  it("falls back to the resource's service.name, then to unknown_service", () => {
    const unnamed = span({ spanId: ROOT, name: "workflow", resource: { "service.name": "my-agent" } });
    expect(traceStart(TRACE_ID, [unnamed]).agentName).toBe("my-agent");
    const bare = span({ spanId: ROOT, name: "workflow" });
    expect(traceStart(TRACE_ID, [bare]).agentName).toBe(UNKNOWN_AGENT);
    expect(UNKNOWN_AGENT).toBe("unknown_service");
  });

  it("reads the user from user.id or enduser.id on spans, then on the resource, else anonymous", () => {
    expect(traceStart(TRACE_ID, [chat(id(2), { "enduser.id": "end-7" })]).userId).toBe("end-7");
    expect(traceStart(TRACE_ID, [span({ spanId: ROOT, name: "r", resource: { "user.id": "res-user" } })]).userId).toBe(
      "res-user",
    );
    expect(
      traceStart(TRACE_ID, [span({ spanId: ROOT, name: "r", resource: { "enduser.id": "res-end" } })]).userId,
    ).toBe("res-end");
    expect(traceStart(TRACE_ID, [root()]).userId).toBe(ANONYMOUS_USER);
    expect(ANONYMOUS_USER).toBe("anonymous");
  });

  it("without the root: a provisional name and the earliest child's start", () => {
    const late = tool(id(3), {}, { startMs: T0 + 900 });
    const early = chat(id(2), {}, { startMs: T0 + 300 });
    const named = traceStart(TRACE_ID, [late, early]);
    expect(named.provisionalName).toBe(true);
    expect(named.startedAtMs).toBe(T0 + 300);
    expect(named.name).toBe(`trace ${TRACE_ID}`);
    const withAgent = traceStart(TRACE_ID, [chat(id(2), {}, { resource: { "service.name": "svc-agent" } })]);
    expect(withAgent.name).toBe("invoke_agent svc-agent");
    expect(withAgent.provisionalName).toBe(true);
  });

  it("copies conversation and agent ids, the provider and model of the first inference span (≤ v1.36 names too)", () => {
    const start = traceStart(TRACE_ID, [
      root({
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.conversation.id": "conv-1",
          "gen_ai.agent.id": "agent-9",
        },
      }),
      chat(id(2), { "gen_ai.system": "anthropic", "gen_ai.response.model": "claude-x" }),
    ]);
    expect(start.metadata).toMatchObject({
      "gen_ai.conversation.id": "conv-1",
      "gen_ai.agent.id": "agent-9",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-x",
    });
  });

  it("copies the first span's scalar resource attributes into metadata.resource, within a budget", () => {
    const resource: Record<string, AttributeValue> = {
      "service.name": "svc",
      "process.pid": 1234,
      "host.arch.is64": true,
      "telemetry.sdk.list": ["a", "b"],
      "long.text": "x".repeat(5000),
    };
    for (let index = 0; index < 20; index++) resource[`pad.${index}`] = "y".repeat(1000);
    const start = traceStart(TRACE_ID, [root({ resource })]);
    const copied = start.metadata.resource as Record<string, unknown>;
    expect(copied["service.name"]).toBe("svc");
    expect(copied["process.pid"]).toBe(1234);
    expect(copied["host.arch.is64"]).toBe(true);
    expect(copied).not.toHaveProperty("telemetry.sdk.list");
    expect((copied["long.text"] as string).length).toBe(1024);
    expect(Buffer.byteLength(JSON.stringify(copied))).toBeLessThanOrEqual(8 * 1024 + 5000);
    expect(Object.keys(copied).length).toBeLessThan(Object.keys(resource).length);
  });
});

describe("a root that names a workflow, not an agent (the OpenAI Agents SDK's trace under OpenInference)", () => {
  const SERVICE = { "service.name": "agents-app" };
  /** The SDK's trace: a root AGENT span named after the workflow, without agent.name. */
  const workflow = (name: string) =>
    span({ spanId: ROOT, name, attributes: { "openinference.span.kind": "AGENT" }, resource: SERVICE });
  /** The agent's own AGENT span below it (through the SDK's task span). */
  const agentSpan = span({
    spanId: id(3),
    parentSpanId: id(2),
    name: "Weather assistant",
    attributes: { "openinference.span.kind": "AGENT", "graph.node.id": "Weather assistant" },
    resource: SERVICE,
  });
  const task = span({
    spanId: id(2),
    parentSpanId: ROOT,
    name: "Agent workflow",
    attributes: { "openinference.span.kind": "CHAIN" },
    resource: SERVICE,
  });

  it("the default 'Agent workflow' root claims nothing: the agent span names the agent and the session", () => {
    for (const spans of [
      [workflow("Agent workflow"), task, agentSpan],
      [agentSpan, task, workflow("Agent workflow")],
    ]) {
      const start = traceStart(TRACE_ID, spans);
      expect(start).toMatchObject({
        agentName: "Weather assistant",
        agentClaim: AGENT_CLAIM.agentSpan,
        name: "invoke_agent Weather assistant",
        genericRoot: true,
        provisionalName: false,
      });
    }
  });

  it("the default root alone: the session is named after the stand-in agent (service.name), else the trace", () => {
    expect(traceStart(TRACE_ID, [workflow("Agent workflow")])).toMatchObject({
      agentName: "agents-app",
      agentClaim: AGENT_CLAIM.serviceName,
      name: "invoke_agent agents-app",
      genericRoot: true,
    });
    const bare = span({ spanId: ROOT, name: "Agent workflow", attributes: { "openinference.span.kind": "AGENT" } });
    expect(traceStart(TRACE_ID, [bare])).toMatchObject({
      agentName: UNKNOWN_AGENT,
      agentClaim: AGENT_CLAIM.none,
      name: `trace ${TRACE_ID}`,
    });
  });

  it("a workflow name the user chose names the session; the agent span still names the agent", () => {
    const start = traceStart(TRACE_ID, [workflow("Trip planning"), task, agentSpan]);
    expect(start).toMatchObject({
      agentName: "Weather assistant",
      agentClaim: AGENT_CLAIM.agentSpan,
      name: "Trip planning",
      genericRoot: false,
    });
    // Alone, the root's name is the best claim at hand, above service.name and below any span naming the agent.
    expect(traceStart(TRACE_ID, [workflow("Trip planning")])).toMatchObject({
      agentName: "Trip planning",
      agentClaim: AGENT_CLAIM.rootName,
      name: "Trip planning",
    });
    expect(AGENT_CLAIM.serviceName).toBeLessThan(AGENT_CLAIM.rootName);
    expect(AGENT_CLAIM.rootName).toBeLessThan(AGENT_CLAIM.anySpan);
  });

  it("a root named 'Agent workflow' that names its agent explicitly is not generic", () => {
    const named = span({
      spanId: ROOT,
      name: "Agent workflow",
      attributes: { "openinference.span.kind": "AGENT", "agent.name": "planner" },
    });
    expect(traceStart(TRACE_ID, [named, agentSpan])).toMatchObject({
      agentName: "planner",
      agentClaim: AGENT_CLAIM.rootSpan,
      name: "Agent workflow",
      genericRoot: false,
    });
  });
});

describe("names (storableName)", () => {
  it("cuts names longer than LIMITS.nameLength characters", () => {
    const start = traceStart(TRACE_ID, [
      root({ name: "n".repeat(1000), attributes: { "gen_ai.agent.name": "a".repeat(300) } }),
    ]);
    expect(start.name).toHaveLength(LIMITS.nameLength);
    expect(start.agentName).toHaveLength(LIMITS.nameLength);
  });

  it("keeps names within LIMITS.nameBytes of UTF-8 and well-formed", () => {
    for (const unit of ["€", "𝄞", "a𝄞", "é"]) {
      const name = storableName(`x${unit.repeat(400)}`, "fallback");
      expect(name.length).toBeLessThanOrEqual(LIMITS.nameLength);
      expect(Buffer.byteLength(name, "utf8")).toBeLessThanOrEqual(LIMITS.nameBytes);
      expect(name.isWellFormed()).toBe(true);
      // A cut never leaves half of a surrogate pair behind as U+FFFD.
      expect(name).not.toContain("\uFFFD");
    }
  });

  it("trims, repairs lone surrogates and falls back when nothing is left", () => {
    expect(storableName("  name  ", "f")).toBe("name");
    expect(storableName("   ", "f")).toBe("f");
    expect(storableName("a\uD800b", "f")).toBe("a\uFFFDb");
  });

  it("cuts free text (failure reasons) without leaving half of a surrogate pair", () => {
    const reason = traceEnd(root({ status: { code: 2, message: `a${"𝄞".repeat(3000)}` } })).failureReason ?? "";
    expect(reason.length).toBeLessThanOrEqual(LIMITS.failureReasonLength);
    expect(reason.endsWith("𝄞…")).toBe(true);
    expect(reason.isWellFormed()).toBe(true);
    expect(reason).not.toContain("\uFFFD");
  });

  it("cuts a root's long name when it ends the session", () => {
    const end = traceEnd(root({ name: "r".repeat(LIMITS.nameLength + 10) }));
    expect(end.name).toHaveLength(LIMITS.nameLength);
  });
});

describe("the session's end (traceEnd)", () => {
  it("an OK or UNSET root completes the session", () => {
    for (const code of [0, 1] as const) {
      const end = traceEnd(root({ status: { code } }));
      expect(end).toEqual({
        name: "invoke_agent travel-planner",
        status: "completed",
        failureReason: undefined,
        completedAtMs: T0 + 5000,
        durationMs: 5000,
        rootCost: undefined,
      });
    }
  });

  it("an ERROR root fails it: status message, else exception.message, else error.type, else '<name> failed'", () => {
    expect(traceEnd(root({ status: { code: 2, message: "boom" } }))).toMatchObject({
      status: "failed",
      failureReason: "boom",
    });
    const withException = root({
      status: { code: 2 },
      events: [{ name: "exception", attributes: { "exception.message": "thrown", "exception.type": "Err" } }],
      attributes: { "error.type": "timeout" },
    });
    expect(traceEnd(withException).failureReason).toBe("thrown");
    expect(traceEnd(root({ status: { code: 2 }, attributes: { "error.type": "timeout" } })).failureReason).toBe(
      "timeout",
    );
    expect(traceEnd(root({ status: { code: 2 } })).failureReason).toBe("invoke_agent travel-planner failed");
    expect(traceEnd(root({ status: { code: 2, message: "m".repeat(10_000) } })).failureReason).toHaveLength(
      LIMITS.failureReasonLength,
    );
  });

  it("keeps the root's own gen_ai.usage.cost for when no inference span has one", () => {
    expect(traceEnd(root({ attributes: { "gen_ai.usage.cost": 0.25 } })).rootCost).toBe(0.25);
    expect(traceEnd(root({ attributes: { "gen_ai.usage.cost": -1 } })).rootCost).toBeUndefined();
  });
});

describe("usage and the session's totals", () => {
  it("reads the current names, with a decimal-text int64 too", () => {
    expect(
      inferenceUsage(
        new Map<string, AttributeValue>([
          ["gen_ai.usage.input_tokens", 100],
          ["gen_ai.usage.output_tokens", "20"],
          ["gen_ai.usage.cost", 0.002],
        ]),
      ),
    ).toEqual({ promptTokens: 100, completionTokens: 20, totalTokens: 120, cost: 0.002 });
  });

  it("reads the ≤ v1.36 names gen_ai.usage.prompt_tokens / completion_tokens, and total_tokens as given", () => {
    expect(
      inferenceUsage(
        new Map<string, AttributeValue>([
          ["gen_ai.usage.prompt_tokens", 7],
          ["gen_ai.usage.completion_tokens", 3],
          ["gen_ai.usage.total_tokens", 11],
        ]),
      ),
    ).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 11 });
    expect(inferenceUsage(new Map())).toEqual({});
    expect(inferenceUsage(new Map([["gen_ai.usage.input_tokens", -5]]))).toMatchObject({ promptTokens: undefined });
  });

  it("drops token counts beyond LIMITS.maxTokens (an int64 such as 2^64, a JSON number such as 1e308)", () => {
    for (const huge of ["18446744073709551616", 1e308, LIMITS.maxTokens + 1]) {
      const usage = inferenceUsage(
        new Map<string, AttributeValue>([
          ["gen_ai.usage.input_tokens", huge],
          ["gen_ai.usage.output_tokens", 5],
          ["gen_ai.usage.total_tokens", huge],
        ]),
      );
      expect(usage).toMatchObject({ promptTokens: undefined, completionTokens: 5, totalTokens: 5 });
    }
    expect(inferenceUsage(new Map([["gen_ai.usage.input_tokens", LIMITS.maxTokens]])).promptTokens).toBe(
      LIMITS.maxTokens,
    );
    const sums = sessionTotals([{ promptTokens: LIMITS.maxTokens }, { promptTokens: LIMITS.maxTokens }]);
    expect(sums.promptTokens).toBe(LIMITS.maxTokens);
  });

  it("sums over inference spans; the root's cost only when none has one; cost capped at maxCostUsd", () => {
    expect(sessionTotals([{ promptTokens: 1, completionTokens: 2, totalTokens: 3 }, { promptTokens: 10 }], 5)).toEqual({
      promptTokens: 11,
      completionTokens: 2,
      totalTokens: 3,
      cacheReadTokens: undefined,
      cacheCreationTokens: undefined,
      estimatedCost: 5,
    });
    expect(sessionTotals([{ cost: 0.5 }, { cost: 0.25 }], 5).estimatedCost).toBe(0.75);
    expect(sessionTotals([{ cost: LIMITS.maxCostUsd }, { cost: 1 }]).estimatedCost).toBe(LIMITS.maxCostUsd);
    expect(sessionTotals([])).toEqual({
      promptTokens: undefined,
      completionTokens: undefined,
      totalTokens: undefined,
      cacheReadTokens: undefined,
      cacheCreationTokens: undefined,
      estimatedCost: undefined,
    });
  });

  it("never counts an agent span's gen_ai.usage.* (root or sub-agent): only inference spans have usage", () => {
    const agentUsage = { "gen_ai.usage.input_tokens": 1000, "gen_ai.usage.output_tokens": 500 };
    const spans = [
      root({ attributes: { "gen_ai.operation.name": "invoke_agent", ...agentUsage } }),
      span({
        spanId: id(5),
        parentSpanId: ROOT,
        name: "invoke_agent helper",
        attributes: { "gen_ai.operation.name": "invoke_agent", ...agentUsage },
      }),
      span({ spanId: id(6), parentSpanId: ROOT, name: "invoke_agent by-name-only", attributes: agentUsage }),
      chat(id(2), { "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 50 }),
      chat(id(3), { "gen_ai.usage.prompt_tokens": 10, "gen_ai.usage.completion_tokens": 5 }),
    ];
    const [plan] = planTraces(spans);
    expect((plan?.inference ?? []).map((call) => call.spanId).sort()).toEqual([id(2), id(3)]);
    expect(sessionTotals(usageOf(plan), plan?.end?.rootCost)).toMatchObject({
      promptTokens: 110,
      completionTokens: 55,
      totalTokens: 165,
    });
  });

  it("property: the totals are the inference spans' sums, whatever usage agent spans carry", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ inference: fc.boolean(), input: fc.nat(10_000), output: fc.nat(10_000) }), {
          maxLength: 12,
        }),
        (children) => {
          const spans = [
            root({ attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 999_999 } }),
            ...children.map((child, index) =>
              span({
                spanId: id(index + 2),
                parentSpanId: ROOT,
                name: child.inference ? "chat m" : "invoke_agent sub",
                attributes: { "gen_ai.usage.input_tokens": child.input, "gen_ai.usage.output_tokens": child.output },
              }),
            ),
          ];
          const [plan] = planTraces(spans);
          const inference = children.filter((child) => child.inference);
          const totals = sessionTotals(usageOf(plan));
          const prompt = inference.reduce((sum, child) => sum + child.input, 0);
          const completion = inference.reduce((sum, child) => sum + child.output, 0);
          expect(totals.promptTokens).toBe(inference.length === 0 ? undefined : prompt);
          expect(totals.totalTokens).toBe(inference.length === 0 ? undefined : prompt + completion);
        },
      ),
    );
  });
});

describe("tool calls (execute_tool → tool_call)", () => {
  it("names the tool from gen_ai.tool.name, else the span name, else 'tool'", () => {
    expect(onlyEvent(tool(id(3), { "gen_ai.tool.name": "search" })).toolName).toBe("search");
    expect(onlyEvent(tool(id(3))).toolName).toBe("get_weather");
    expect(onlyEvent(tool(id(3), {}, { name: "run something" })).toolName).toBe("tool");
    expect(onlyEvent(tool(id(3), { "gen_ai.tool.name": "t".repeat(500) })).toolName).toHaveLength(LIMITS.nameLength);
  });

  it("recognises the operation from the span name when gen_ai.operation.name is missing", () => {
    const unnamed = span({ spanId: id(3), parentSpanId: ROOT, name: "execute_tool lookup" });
    expect(onlyEvent(unnamed)).toMatchObject({ eventType: "tool_call", toolName: "lookup" });
  });

  it("keeps JSON object arguments and results as they are", () => {
    const event = onlyEvent(
      tool(id(3), {
        "gen_ai.tool.call.arguments": '{"city":"Paris","days":3}',
        "gen_ai.tool.call.result": '{"temperature":21}',
        "gen_ai.usage.cost": 0.01,
      }),
    );
    expect(event).toEqual({
      eventType: "tool_call",
      toolName: "get_weather",
      toolInput: { city: "Paris", days: 3 },
      toolOutput: { temperature: 21 },
      estimatedCost: 0.01,
      occurredAt: new Date(T0 + 2000).toISOString(),
      durationMs: 100,
    });
  });

  it("wraps JSON arrays, plain text and structured values that are not objects", () => {
    const arrays = onlyEvent(
      tool(id(3), { "gen_ai.tool.call.arguments": '["a", 1]', "gen_ai.tool.call.result": "sunny, 21°C" }),
    );
    expect(arrays.toolInput).toEqual({ arguments: ["a", 1] });
    expect(arrays.toolOutput).toEqual({ result: "sunny, 21°C" });
    const text = onlyEvent(tool(id(3), { "gen_ai.tool.call.arguments": "Paris", "gen_ai.tool.call.result": 42 }));
    expect(text.toolInput).toEqual({ arguments: "Paris" });
    expect(text.toolOutput).toEqual({ result: 42 });
    const broken = onlyEvent(tool(id(3), { "gen_ai.tool.call.arguments": '{"not json' }));
    expect(broken.toolInput).toEqual({ arguments: '{"not json' });
    const structured = onlyEvent(tool(id(3), { "gen_ai.tool.call.arguments": { city: "Oslo" } }));
    expect(structured.toolInput).toEqual({ city: "Oslo" });
    expect(onlyEvent(tool(id(3))).toolInput).toBeUndefined();
  });

  it("keeps JSON text that nests deeper than an event payload may as text", () => {
    const deep = `${"[".repeat(LIMITS.jsonDepth)}${"]".repeat(LIMITS.jsonDepth)}`;
    expect(attributeJson(deep)).toBe(deep);
    expect(onlyEvent(tool(id(3), { "gen_ai.tool.call.arguments": deep })).toolInput).toEqual({ arguments: deep });
  });
});

describe("inference spans (→ llm_decision)", () => {
  it("records the request, the response, usage and the answer under the current names", () => {
    const event = onlyEvent(
      chat(id(2), {
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 256,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.response.id": "chatcmpl-1",
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 4,
        "gen_ai.usage.cost": 0.0003,
        "gen_ai.system_instructions": '[{"type":"text","content":"Be brief."}]',
        "gen_ai.input.messages": '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]',
        "gen_ai.output.messages":
          '[{"role":"assistant","parts":[{"type":"text","content":"Sunny."}],"finish_reason":"stop"}]',
      }),
    );
    expect(event).toEqual({
      eventType: "llm_decision",
      toolInput: {
        operation: "chat",
        provider: "openai",
        model: "gpt-4o",
        temperature: 0.2,
        maxTokens: 256,
        topP: 0.9,
        systemInstructions: [{ type: "text", content: "Be brief." }],
        messages: [{ role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] }],
      },
      toolOutput: {
        model: "gpt-4o-2024-08-06",
        responseId: "chatcmpl-1",
        finishReasons: ["stop"],
        promptTokens: 12,
        completionTokens: 4,
        totalTokens: 16,
        durationMs: 1000,
        messages: [{ role: "assistant", parts: [{ type: "text", content: "Sunny." }], finish_reason: "stop" }],
      },
      reasoning: "Sunny.",
      estimatedCost: 0.0003,
      occurredAt: new Date(T0 + 100).toISOString(),
      durationMs: 1000,
      // The model the provider answered with, and the usage in the event's own fields (priced at ingest).
      model: "gpt-4o-2024-08-06",
      usage: { promptTokens: 12, completionTokens: 4, totalTokens: 16 },
    });
  });

  it("names the requested model when the response names none; maps cache writes and reasoning into usage", () => {
    const event = onlyEvent(
      chat(id(2), {
        "gen_ai.request.model": "  claude-sonnet-4-5  ",
        "gen_ai.usage.input_tokens": 400,
        "gen_ai.usage.output_tokens": 50,
        "gen_ai.usage.cache_read.input_tokens": 300,
        "gen_ai.usage.cache_creation.input_tokens": 60,
        "gen_ai.usage.reasoning.output_tokens": 20,
      }),
    );
    expect(event).toMatchObject({
      model: "claude-sonnet-4-5",
      usage: {
        promptTokens: 400,
        completionTokens: 50,
        totalTokens: 450,
        cacheReadTokens: 300,
        cacheWriteTokens: 60,
        reasoningTokens: 20,
      },
    });
    expect(event.estimatedCost).toBeUndefined();
  });

  it("gives a model call without a model or any count neither model nor usage", () => {
    const event = onlyEvent(chat(id(2), {}));
    expect(event).not.toHaveProperty("model");
    expect(event).not.toHaveProperty("usage");
  });

  it("reads gen_ai.system and the ≤ v1.36 per-message events (gen_ai.user.message … gen_ai.choice)", () => {
    const event = onlyEvent(
      chat(
        id(2),
        { "gen_ai.system": "openai", "gen_ai.usage.prompt_tokens": 5, "gen_ai.usage.completion_tokens": 2 },
        {
          events: [
            { name: "gen_ai.system.message", attributes: { "gen_ai.event.content": '{"content":"Be brief."}' } },
            { name: "gen_ai.user.message", attributes: { content: "Hi" } },
            { name: "gen_ai.assistant.message", attributes: { "gen_ai.content": "Hello" } },
            { name: "gen_ai.tool.message", attributes: { content: '{"id":"call_1","result":"ok"}' } },
            {
              name: "gen_ai.choice",
              attributes: {
                "gen_ai.event.content": '{"index":0,"finish_reason":"stop","message":{"content":"Bye"}}',
              },
            },
          ],
        },
      ),
    );
    expect(event.toolInput).toMatchObject({
      provider: "openai",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello" },
        { role: "tool", content: { id: "call_1", result: "ok" } },
      ],
    });
    expect(event.toolOutput).toMatchObject({
      promptTokens: 5,
      completionTokens: 2,
      totalTokens: 7,
      messages: [{ role: "assistant", index: 0, finish_reason: "stop", message: { content: "Bye" } }],
    });
    expect(event.reasoning).toBe("Bye");
  });

  it("reads the older gen_ai.content.prompt / gen_ai.content.completion events", () => {
    const subject = chat(
      id(2),
      {},
      {
        name: "text_completion m",
        attributes: { "gen_ai.operation.name": "text_completion" },
        events: [
          { name: "gen_ai.content.prompt", attributes: { "gen_ai.prompt": '[{"role":"user","content":"2+2?"}]' } },
          { name: "gen_ai.content.completion", attributes: { "gen_ai.completion": "4" } },
        ],
      },
    );
    expect(spanMessages(subject)).toEqual({
      input: [{ role: "user", content: "2+2?" }],
      output: "4",
      systemInstructions: undefined,
    });
    expect(onlyEvent(subject)).toMatchObject({
      eventType: "llm_decision",
      toolInput: { operation: "text_completion", messages: [{ role: "user", content: "2+2?" }] },
      reasoning: "4",
    });
  });

  it("prefers the attributes over the events when a span carries both", () => {
    const subject = chat(
      id(2),
      { "gen_ai.input.messages": '[{"role":"user","content":"new"}]' },
      { events: [{ name: "gen_ai.user.message", attributes: { content: "old" } }] },
    );
    expect(spanMessages(subject).input).toEqual([{ role: "user", content: "new" }]);
  });

  it("treats every inference operation (also by span name) as llm_decision", () => {
    for (const operation of ["chat", "text_completion", "generate_content", "embeddings"]) {
      expect(onlyEvent(chat(id(2), { "gen_ai.operation.name": operation })).eventType).toBe("llm_decision");
      const byName = span({ spanId: id(2), parentSpanId: ROOT, name: `${operation} some-model` });
      expect(onlyEvent(byName).eventType).toBe("llm_decision");
    }
  });

  it("cuts the answer to ANSWER_CHARS characters", () => {
    const answer = "a".repeat(ANSWER_CHARS + 100);
    const event = onlyEvent(chat(id(2), { "gen_ai.output.messages": JSON.stringify([{ content: answer }]) }));
    expect(event.reasoning).toHaveLength(ANSWER_CHARS);
    expect(event.reasoning?.endsWith("…")).toBe(true);
  });

  it("answerText joins text parts and content of every output message", () => {
    expect(answerText(undefined)).toBeUndefined();
    expect(answerText("plain")).toBe("plain");
    expect(answerText([{ parts: [{ type: "text", content: "a" }, { type: "tool_call" }] }, { content: "b" }])).toBe(
      "a\nb",
    );
    expect(answerText([{ content: [{ type: "text", text: "c" }] }])).toBe("c");
    expect(answerText([{ parts: [] }])).toBeUndefined();
  });
});

describe("agent spans (→ state_change)", () => {
  it("a sub-agent is a state_change event; the root agent span is the session itself", () => {
    const subAgent = span({
      spanId: id(4),
      parentSpanId: ROOT,
      name: "invoke_agent helper",
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper", "gen_ai.agent.id": "h-1" },
    });
    expect(onlyEvent(subAgent)).toEqual({
      eventType: "state_change",
      reasoning: "invoke_agent helper",
      toolInput: { operation: "invoke_agent", agentName: "helper", agentId: "h-1" },
      occurredAt: new Date(T0).toISOString(),
      durationMs: 1000,
    });
    const created = span({ spanId: id(5), parentSpanId: ROOT, name: "create_agent x" });
    expect(onlyEvent(created)).toMatchObject({ eventType: "state_change", toolInput: { operation: "create_agent" } });
    expect(spanEvents(root(), true)).toEqual([]);
  });
});

describe("durations (durationMs: the span's end − start)", () => {
  it("a 2-second tool span is a tool_call starting at the span's start and lasting 2000 ms", () => {
    const event = onlyEvent(tool(id(3), {}, { startMs: T0 + 500, endMs: T0 + 2500 }));
    expect(event).toMatchObject({ eventType: "tool_call", occurredAt: new Date(T0 + 500).toISOString() });
    expect(event.durationMs).toBe(2000);
  });

  it("rounds to whole milliseconds, never below 0, never above LIMITS.maxDurationMs", () => {
    expect(onlyEvent(chat(id(2), {}, { startMs: T0, endMs: T0 + 1234.6 })).durationMs).toBe(1235);
    expect(onlyEvent(chat(id(2), {}, { startMs: T0 + 50, endMs: T0 })).durationMs).toBe(0);
    expect(onlyEvent(tool(id(3), {}, { startMs: T0, endMs: T0 })).durationMs).toBe(0);
    const endless = onlyEvent(tool(id(3), {}, { startMs: 0, endMs: 4_000_000_000_000 }));
    expect(endless.durationMs).toBe(LIMITS.maxDurationMs);
  });

  it("error events (an exception's, or an ERROR status's at the span's end) are points without a duration", () => {
    const failing = tool(
      id(3),
      {},
      {
        status: { code: 2 },
        events: [{ name: "exception", timeMs: T0 + 2050, attributes: { "exception.type": "E" } }],
      },
    );
    const [call, exception] = spanEvents(failing, false);
    expect(call?.event.durationMs).toBe(100);
    expect(exception?.event.eventType).toBe("error");
    expect(exception?.event).not.toHaveProperty("durationMs");
    const statusOnly = spanEvents(span({ spanId: id(7), parentSpanId: ROOT, name: "x", status: { code: 2 } }), false);
    expect(statusOnly.map((planned) => planned.event.eventType)).toEqual(["error"]);
    expect(statusOnly[0]?.event).not.toHaveProperty("durationMs");
  });
});

describe("errors (→ error events)", () => {
  it("one error event per exception event, at the exception's time, keyed after the span's own event", () => {
    const failing = tool(
      id(3),
      {},
      {
        status: { code: 2, message: "status says" },
        events: [
          {
            name: "exception",
            timeMs: T0 + 2050,
            attributes: {
              "exception.type": "TimeoutError",
              "exception.message": "timed out",
              "exception.stacktrace": "at x",
            },
          },
          { name: "exception", timeMs: T0 + 2060, attributes: { "exception.type": "RetryError" } },
          { name: "exception", timeMs: T0 + 2070 },
          { name: "log", attributes: { "exception.message": "not an exception event" } },
        ],
      },
    );
    const events = spanEvents(failing, false);
    expect(events.map((planned) => planned.idempotencyKey)).toEqual([
      `otel:${id(3)}:0`,
      `otel:${id(3)}:1`,
      `otel:${id(3)}:2`,
      `otel:${id(3)}:3`,
    ]);
    expect(events[1]?.event).toEqual({
      eventType: "error",
      toolName: "get_weather",
      reasoning: "timed out",
      toolOutput: { spanName: "execute_tool get_weather", exceptionType: "TimeoutError", stacktrace: "at x" },
      occurredAt: new Date(T0 + 2050).toISOString(),
    });
    expect(events[2]?.event.reasoning).toBe("RetryError");
    expect(events[3]?.event.reasoning).toBe("exception");
  });

  it("an ERROR status without exception events is one error event at the span's end", () => {
    const failing = span({
      spanId: id(7),
      parentSpanId: ROOT,
      name: "http GET",
      attributes: { "error.type": "500" },
      status: { code: 2 },
      endMs: T0 + 3000,
    });
    expect(spanEvents(failing, false)).toEqual([
      {
        spanId: id(7),
        idempotencyKey: `otel:${id(7)}:0`,
        event: {
          eventType: "error",
          toolName: undefined,
          reasoning: "500",
          toolOutput: { spanName: "http GET", errorType: "500" },
          occurredAt: new Date(T0 + 3000).toISOString(),
        },
      },
    ]);
    expect(spanEvents({ ...failing, status: { code: 2, message: "bad gateway" } }, false)[0]?.event.reasoning).toBe(
      "bad gateway",
    );
    expect(spanEvents({ ...failing, attributes: new Map(), status: { code: 2 } }, false)[0]?.event.reasoning).toBe(
      "http GET failed",
    );
  });

  it("a failing root has its error events too", () => {
    expect(spanEvents(root({ status: { code: 2, message: "x" } }), true).map((e) => e.event.eventType)).toEqual([
      "error",
    ]);
  });

  it("non-GenAI spans produce no events unless they fail", () => {
    const plain = span({ spanId: id(8), parentSpanId: ROOT, name: "GET /weather", status: { code: 1 } });
    expect(spanEvents(plain, false)).toEqual([]);
    const withOtherEvents = span({ spanId: id(8), parentSpanId: ROOT, name: "db", events: [{ name: "retry" }] });
    expect(spanEvents(withOtherEvents, false)).toEqual([]);
  });
});

describe("planTraces", () => {
  it("groups spans by trace in first-appearance order; the root ends the session", () => {
    const other = span({ traceId: OTHER_TRACE_ID, spanId: id(9), parentSpanId: id(10), name: "chat m" });
    const plans = planTraces([chat(id(2)), other, root(), tool(id(3))]);
    expect(plans.map((plan) => plan.traceId)).toEqual([TRACE_ID, OTHER_TRACE_ID]);
    const [first, second] = plans;
    expect(first?.spanIds).toEqual([id(2), ROOT, id(3)]);
    expect(first?.rootSpanId).toBe(ROOT);
    expect(first?.end?.status).toBe("completed");
    expect(first?.start.provisionalName).toBe(false);
    expect(first?.events.map((planned) => [planned.spanId, planned.event.eventType])).toEqual([
      [id(2), "llm_decision"],
      [id(3), "tool_call"],
    ]);
    expect(second?.rootSpanId).toBeUndefined();
    expect(second?.end).toBeUndefined();
    expect(second?.start).toMatchObject({ provisionalName: true, name: `trace ${OTHER_TRACE_ID}` });
  });

  it("a span exported twice plans the same events (same idempotency keys)", () => {
    const spans = [root(), chat(id(2)), tool(id(3), {}, { status: { code: 2 } })];
    expect(planTraces(spans)).toEqual(planTraces(spans));
    expect(planTraces(spans)[0]?.events.map((planned) => planned.idempotencyKey)).toEqual([
      `otel:${id(2)}:0`,
      `otel:${id(3)}:0`,
      `otel:${id(3)}:1`,
    ]);
  });

  it("property: never throws, one plan per trace, every key otel:<spanId>:<n>", () => {
    const value: fc.Arbitrary<AttributeValue> = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('{"a":1}', "[1,2]", "{broken", "[".repeat(40)),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    );
    const key = fc.constantFrom(
      "gen_ai.operation.name",
      "gen_ai.agent.name",
      "gen_ai.tool.name",
      "gen_ai.tool.call.arguments",
      "gen_ai.usage.input_tokens",
      "gen_ai.usage.cost",
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      "user.id",
      "__proto__",
      "constructor",
    );
    const attributes = fc.array(fc.tuple(key, value), { maxLength: 6 });
    const arbitrarySpan = fc.record({
      trace: fc.nat(2),
      spanId: fc.integer({ min: 1, max: 20 }),
      parent: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
      name: fc.oneof(fc.string(), fc.constantFrom("chat m", "execute_tool t", "invoke_agent a", "embeddings")),
      startMs: fc.integer({ min: 0, max: 4_000_000_000_000 }),
      durationMs: fc.nat(100_000),
      attributes,
      events: fc.array(
        fc.record({ name: fc.constantFrom("exception", "gen_ai.choice", "gen_ai.user.message", "x"), attributes }),
        { maxLength: 3 },
      ),
      status: fc.constantFrom(0, 1, 2),
      resource: attributes,
    });
    fc.assert(
      fc.property(fc.array(arbitrarySpan, { maxLength: 15 }), (inputs) => {
        const spans = inputs.map(
          (input): OtelSpan => ({
            traceId: [TRACE_ID, OTHER_TRACE_ID, "1".repeat(32)][input.trace] as string,
            spanId: id(input.spanId),
            parentSpanId: input.parent === undefined ? undefined : id(input.parent),
            name: input.name,
            startMs: input.startMs,
            endMs: input.startMs + input.durationMs,
            attributes: new Map(input.attributes),
            events: input.events.map((event) => ({
              name: event.name,
              timeMs: input.startMs,
              attributes: new Map(event.attributes),
            })),
            status: { code: input.status as 0 | 1 | 2 },
            resource: new Map(input.resource),
          }),
        );
        const plans = planTraces(spans);
        expect(plans.length).toBe(new Set(spans.map((s) => s.traceId)).size);
        for (const plan of plans) {
          expect(plan.start.agentName.length).toBeGreaterThan(0);
          expect(plan.start.userId.length).toBeGreaterThan(0);
          expect(plan.start.name.length).toBeLessThanOrEqual(LIMITS.nameLength);
          for (const planned of plan.events) {
            expect(planned.idempotencyKey).toMatch(new RegExp(`^otel:${planned.spanId}:\\d+$`));
            expect(Number.isNaN(Date.parse(planned.event.occurredAt))).toBe(false);
            // An event of a span lasts as long as its span (one of the spans of that id); an error is a point.
            const lasted = spans
              .filter((candidate) => candidate.spanId === planned.spanId && candidate.traceId === plan.traceId)
              .map((candidate) => candidate.endMs - candidate.startMs);
            if (planned.event.eventType === "error") expect(planned.event.durationMs).toBeUndefined();
            else expect(lasted).toContain(planned.event.durationMs);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
