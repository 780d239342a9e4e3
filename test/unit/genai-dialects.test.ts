/**
 * Every row of the dialect tables of docs/otel.md (test/unit/genai-dialect-rows.ts), and how the dialects meet:
 * the most specific one a span carries reads it alone, what it says of the run comes from all of them, a model
 * call wrapped in another is one call, and the claims on the agent and user rank as documented.
 */
import { describe, expect, it } from "vitest";
import { AGENT_CLAIM, agentClaim, planTraces, USER_CLAIM, userClaim } from "../../functions/domain/genai-trace-plan.js";
import type { AttributeValue } from "../../functions/domain/otel-span.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { DIALECT_ROWS } from "./genai-dialect-rows.js";
import { id, span } from "./otlp-fixtures.js";

describe.each(Object.entries(DIALECT_ROWS))("docs/otel.md: the %s table", (_table, rows) => {
  it.each(Object.entries(rows))("%s", (_row, check) => {
    check();
  });
});

const ROOT = id(1);
/** A span read through the dialects: a child of ROOT, or the root itself when `parentSpanId` is null. */
const read = (
  attributes: Record<string, AttributeValue>,
  spanId = id(2),
  parentSpanId: string | null = ROOT,
  name = "s",
) => normaliseSpan(span({ spanId, ...(parentSpanId === null ? {} : { parentSpanId }), name, attributes }));

describe("spans of several dialects", () => {
  it("an AI SDK model call carrying ai.usage.* and gen_ai.usage.* is read by the AI SDK dialect alone: its tokens once", () => {
    const doGenerate = read({
      "ai.operationId": "ai.generateText.doGenerate",
      "ai.usage.inputTokens": 11,
      "ai.usage.outputTokens": 5,
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.system": "openai.chat",
    });
    expect(doGenerate).toMatchObject({ dialect: "vercel-ai", role: "inference" });
    expect(doGenerate.usage).toMatchObject({ promptTokens: 11, completionTokens: 5, totalTokens: 16 });
  });

  it("the AI SDK's outer call (the run) and its doGenerate count the doGenerate's tokens only", () => {
    const [plan] = planTraces([
      read(
        { "ai.operationId": "ai.generateText", "ai.usage.inputTokens": 28, "ai.usage.outputTokens": 12 },
        ROOT,
        null,
      ),
      read(
        { "ai.operationId": "ai.generateText.doGenerate", "ai.usage.inputTokens": 11, "ai.usage.outputTokens": 5 },
        id(2),
      ),
      read(
        { "ai.operationId": "ai.generateText.doGenerate", "ai.usage.inputTokens": 17, "ai.usage.outputTokens": 7 },
        id(3),
      ),
    ]);
    expect(plan?.inference.map((call) => call.usage.promptTokens)).toEqual([11, 17]);
    expect(plan?.end?.rootUsage).toMatchObject({ promptTokens: 28 });
  });

  it("a Langfuse generation that also carries gen_ai.* is read by the Langfuse dialect alone: its usage once", () => {
    const generation = read({
      "langfuse.observation.type": "generation",
      "langfuse.observation.usage_details": '{"input": 10, "output": 2}',
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": 99,
      "gen_ai.agent.name": "semconv-agent",
      "langfuse.trace.name": "langfuse-trace",
    });
    expect(generation).toMatchObject({ dialect: "langfuse", agentName: "langfuse-trace" });
    expect(generation.usage).toMatchObject({ promptTokens: 10, completionTokens: 2, totalTokens: 12 });
  });

  it("a span of another library under the Langfuse processor: its own dialect reads it, Langfuse's attributes its run", () => {
    const chat = read({
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": 7,
      "user.id": "u1",
      "session.id": "s1",
      "langfuse.trace.name": "support-bot",
      "langfuse.trace.metadata.plan": "pro",
    });
    expect(chat).toMatchObject({ dialect: "genai-semconv", role: "inference", userId: "u1", conversationId: "s1" });
    expect(chat.agentName).toBe("support-bot");
    expect(chat.metadata).toEqual({ "langfuse.trace.metadata": { plan: "pro" } });
  });

  it("the identity of a span is read from every dialect it carries, the most specific first", () => {
    const chat = read({
      "gen_ai.operation.name": "chat",
      "traceloop.association.properties.userId": "from-traceloop",
      "ai.settings.context.sessionId": "from-ai-sdk",
    });
    expect(chat).toMatchObject({ dialect: "genai-semconv", userId: "from-traceloop", conversationId: "from-ai-sdk" });
    const both = read({
      "openinference.span.kind": "LLM",
      "user.id": "oi-user",
      "traceloop.association.properties.userId": "tl",
    });
    expect(both.userId).toBe("oi-user");
  });

  it("a model call wrapped in another model call's span is one call: the inner is the llm_decision and counts", () => {
    const [plan] = planTraces([
      read({ "openinference.span.kind": "LLM", "llm.token_count.prompt": 11, "llm.token_count.completion": 5 }, id(2)),
      read(
        { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 11, "gen_ai.usage.output_tokens": 5 },
        id(3),
        id(2),
      ),
    ]);
    expect(plan?.inference.map((call) => call.spanId)).toEqual([id(3)]);
    expect(
      plan?.events.filter((planned) => planned.event.eventType === "llm_decision").map((planned) => planned.spanId),
    ).toEqual([id(3)]);
  });
});

describe("claims on the agent and the user", () => {
  const root = read(
    { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "root-agent", "user.id": "root-user" },
    ROOT,
    null,
  );
  const subAgent = read({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "sub-agent" }, id(3));
  const chat = read(
    { "gen_ai.operation.name": "chat", "gen_ai.agent.name": "chat-agent", "user.id": "chat-user" },
    id(4),
  );
  const bare = normaliseSpan(
    span({
      spanId: id(5),
      parentSpanId: ROOT,
      name: "s",
      attributes: {},
      resource: { "service.name": "svc", "user.id": "res-user" },
    }),
  );

  it("rank the root over an agent span over any span over the resource", () => {
    expect(agentClaim([bare, chat, subAgent, root])).toEqual({ value: "root-agent", strength: AGENT_CLAIM.rootSpan });
    expect(agentClaim([bare, chat, subAgent])).toEqual({ value: "sub-agent", strength: AGENT_CLAIM.agentSpan });
    expect(agentClaim([bare, chat])).toEqual({ value: "chat-agent", strength: AGENT_CLAIM.anySpan });
    expect(agentClaim([bare])).toEqual({ value: "svc", strength: AGENT_CLAIM.serviceName });
    expect(userClaim([bare, chat, root])).toEqual({ value: "root-user", strength: USER_CLAIM.rootSpan });
    expect(userClaim([bare, chat])).toEqual({ value: "chat-user", strength: USER_CLAIM.anySpan });
    expect(userClaim([bare])).toEqual({ value: "res-user", strength: USER_CLAIM.resource });
    expect(userClaim([])).toBeUndefined();
  });

  it("a root named only by its own name (a workflow, chain, trace) ranks below any span naming the agent, above the resource", () => {
    const roots = [
      read({ "openinference.span.kind": "CHAIN" }, ROOT, null, "trip-workflow"),
      read({ "openinference.span.kind": "AGENT" }, ROOT, null, "trip-workflow"),
      read({ "traceloop.span.kind": "workflow", "traceloop.entity.name": "trip-workflow" }, ROOT, null),
      read({ "langfuse.observation.type": "span" }, ROOT, null, "trip-workflow"),
    ];
    const ownAgent = {
      openinference: read({ "openinference.span.kind": "AGENT" }, id(6), ROOT, "planner"),
      openllmetry: read({ "traceloop.span.kind": "agent", "traceloop.entity.name": "planner" }, id(6)),
      langfuse: read({ "langfuse.observation.type": "agent" }, id(6), ROOT, "planner"),
    };
    for (const workflow of roots) {
      const agent = ownAgent[workflow.dialect as keyof typeof ownAgent];
      expect(agentClaim([workflow, agent, bare])).toEqual({ value: "planner", strength: AGENT_CLAIM.agentSpan });
      expect(agentClaim([workflow, chat, bare])).toEqual({ value: "chat-agent", strength: AGENT_CLAIM.anySpan });
      expect(agentClaim([workflow, bare])).toEqual({ value: "trip-workflow", strength: AGENT_CLAIM.rootName });
    }
    // The SDK's default name on a root naming no agent claims nothing; the resource is the stand-in.
    const generic = read({ "openinference.span.kind": "AGENT" }, ROOT, null, "Agent workflow");
    expect(agentClaim([generic, bare])).toEqual({ value: "svc", strength: AGENT_CLAIM.serviceName });
  });
});
