/**
 * Mastra, real: an `Agent` (`@mastra/core`) with one tool, its model (Mastra's OpenAI-compatible model config,
 * `{ providerId, modelId, url }`) pointed at the fake chat server, and Mastra's observability (`@mastra/observability`) exporting through `@mastra/otel-exporter`
 * as its README configures it — the `custom` provider with ats's OTLP base, an `Authorization: Bearer <key>` header
 * and `http/protobuf`. The agent is called with Mastra's memory arguments (`thread`, `resource`): the run reads
 * back as one session under the agent's name and the resource as its user, the thread as its conversation, with
 * one `llm_decision` per provider call (Mastra's `model_inference` span: its usage; its `model_step`: the turn's
 * messages) and the `tool_call` with the tool's input and output; a second (streamed) run of the thread is the same
 * conversation. A workflow whose step calls the agent is a session under the workflow (its steps and the agent as
 * `state_change` events); a tool that throws is an `error` event of the tool (that run exported as OTLP JSON); a
 * run exported children first, the root last (as a long run's batches arrive), is counted exactly; a run whose
 * provider answers with an error fails.
 */
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { createTool } from "@mastra/core/tools";
import { createStep, createWorkflow } from "@mastra/core/workflows";
import { Observability } from "@mastra/observability";
import { OtelExporter } from "@mastra/otel-exporter";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  CACHED_TOKENS,
  CHAT_MODEL,
  type FakeChatServer,
  FINAL_ANSWER,
  FIRST_USAGE,
  SECOND_USAGE,
  startFakeChatServer,
  TOOL_NAME,
  TOOL_RESULT,
} from "../support/fake-chat-server.js";
import { createTestKey, readAllEvents, startTestApi } from "../support/fixtures.js";
import {
  expectCountedExactly,
  expectPricedFromTable,
  exportChildrenFirst,
  sessionsOf,
} from "../support/otel-library-run.js";

let api: LocalApi;
let chat: FakeChatServer;

beforeAll(async () => {
  [api, chat] = await Promise.all([startTestApi(), startFakeChatServer()]);
});
afterAll(async () => {
  await Promise.all([api.close(), chat.close()]);
});

type Item = Record<string, unknown>;

/** Keeps what Mastra's exporter sends, for the test to export later (InMemorySpanExporter forgets on shutdown). */
class SpanRecorder implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    this.spans.push(...spans);
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

const AGENT_ID = "weather-agent";
const AGENT_NAME = "Weather Agent";
const QUESTION = "What is the weather in Oslo?";
const text = (value: unknown) => JSON.stringify(value ?? null);

/** A workflow: ask the agent about a city (its tracing context handed on), then shout the answer. */
const weatherReport = createWorkflow({
  id: "weather-report",
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ loud: z.string() }),
})
  .then(
    createStep({
      id: "ask-weather",
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ answer: z.string() }),
      execute: async ({ inputData, mastra, tracingContext }) => {
        const result = await mastra
          .getAgent("weather")
          .generate(
            `What is the weather in ${inputData.city}?`,
            tracingContext === undefined ? {} : { tracingContext },
          );
        return { answer: result.text };
      },
    }),
  )
  .then(
    createStep({
      id: "shout",
      inputSchema: z.object({ answer: z.string() }),
      outputSchema: z.object({ loud: z.string() }),
      execute: async ({ inputData }) => ({ loud: inputData.answer.toUpperCase() }),
    }),
  )
  .commit();

interface AppOptions {
  /** What the agent's tool does (default: answers TOOL_RESULT). */
  readonly execute?: () => Promise<unknown>;
  readonly protocol?: "http/protobuf" | "http/json";
  /** Export to this recorder (OtelExporter's `exporter` option) instead of ats, for the test to export later. */
  readonly recorded?: SpanRecorder;
  /** The model's base URL (default: the fake chat server's). */
  readonly modelUrl?: string;
}

/** A Mastra app with the weather agent and workflow, exporting its traces to ats with `key`. */
function mastraApp(key: string, options: AppOptions = {}) {
  const { execute = async () => TOOL_RESULT, protocol = "http/protobuf", recorded, modelUrl = chat.baseURL } = options;
  const weather = createTool({
    id: TOOL_NAME,
    description: "The weather in a city",
    inputSchema: z.object({ city: z.string() }),
    execute,
  });
  const agent = new Agent({
    id: AGENT_ID,
    name: AGENT_NAME,
    instructions: "You answer questions about the weather.",
    model: { providerId: "fake", modelId: CHAT_MODEL, url: modelUrl, apiKey: "x" },
    tools: { [TOOL_NAME]: weather },
  });
  const exporter = new OtelExporter({
    provider: {
      custom: {
        endpoint: `${api.url}/api/otel`,
        headers: { authorization: `Bearer ${key}` },
        protocol,
      },
    },
    signals: { logs: false },
    ...(recorded === undefined ? {} : { exporter: recorded }),
  });
  const app = new Mastra({
    agents: { weather: agent },
    workflows: { weatherReport },
    observability: new Observability({ configs: { otel: { serviceName: "mastra-service", exporters: [exporter] } } }),
    logger: false,
  });
  return { app, agent: app.getAgent("weather"), workflow: app.getWorkflow("weatherReport") };
}

/** The events of a session, its model calls in order and its tool calls. */
async function eventsOf(key: string, session: Item) {
  const { events } = await readAllEvents(api, key, String(session.id));
  const byTime = (a: Item, b: Item) => String(a.occurredAt).localeCompare(String(b.occurredAt));
  return {
    events,
    decisions: events.filter((event) => event.eventType === "llm_decision").sort(byTime),
    tools: events.filter((event) => event.eventType === "tool_call"),
    errors: events.filter((event) => event.eventType === "error"),
  };
}

describe("Mastra (@mastra/otel-exporter)", () => {
  it("an agent run: one session under the agent and the resource, the thread as conversation, each call and the tool", async () => {
    const { key } = await createTestKey();
    const { app, agent } = mastraApp(key);
    const from = Date.now();
    const first = await agent.generate(QUESTION, { memory: { thread: "thread-oslo", resource: "mastra-user-1" } });
    // The second run streams (the provider answers with server-sent events).
    const stream = await agent.stream("And tomorrow?", {
      memory: { thread: "thread-oslo", resource: "mastra-user-1" },
    });
    const secondText = await stream.text;
    await app.shutdown();
    const to = Date.now();
    expect(first.text).toBe(FINAL_ANSWER);
    expect(secondText).toBe(FINAL_ANSWER);
    expect(chat.requests.slice(-2).map((request) => request.stream)).toEqual([true, true]);

    const sessions = await sessionsOf(api, key);
    expect(sessions.map((session) => `${String(session.agentName)} / ${String(session.userId)}`)).toEqual([
      `${AGENT_NAME} / mastra-user-1`,
      `${AGENT_NAME} / mastra-user-1`,
    ]);
    // Both runs of the thread are one conversation.
    expect(sessions.map((session) => (session.metadata as Item)["gen_ai.conversation.id"])).toEqual([
      "thread-oslo",
      "thread-oslo",
    ]);
    // Each run's tokens exactly, the streamed one's too.
    for (const each of sessions) {
      expect(each).toMatchObject({
        promptTokens: FIRST_USAGE.prompt + SECOND_USAGE.prompt,
        completionTokens: FIRST_USAGE.completion + SECOND_USAGE.completion,
      });
    }
    // The first run's session: the earlier of the two.
    const session = sessions.reduce((a, b) => (String(a.createdAt) <= String(b.createdAt) ? a : b));
    expect(session).toMatchObject({
      name: `invoke_agent ${AGENT_NAME}`,
      status: "completed",
      success: true,
      promptTokens: FIRST_USAGE.prompt + SECOND_USAGE.prompt,
      completionTokens: FIRST_USAGE.completion + SECOND_USAGE.completion,
      totalTokens: FIRST_USAGE.prompt + FIRST_USAGE.completion + SECOND_USAGE.prompt + SECOND_USAGE.completion,
      customMetrics: { cacheReadTokens: 2 * CACHED_TOKENS },
    });
    expect(Date.parse(String(session.createdAt))).toBeGreaterThanOrEqual(from - 1);
    expect(Date.parse(String(session.completedAt))).toBeGreaterThanOrEqual(Date.parse(String(session.createdAt)));
    expect(Date.parse(String(session.completedAt))).toBeLessThanOrEqual(to + 1);
    expect(session.metadata).toMatchObject({
      "gen_ai.agent.id": AGENT_ID,
      "mastra.metadata": { resourceId: "mastra-user-1", threadId: "thread-oslo" },
    });
    expect(text(session.metadata)).not.toContain("otel.awaiting_root");

    const { events, decisions, tools, errors } = await eventsOf(key, session);
    expect(
      events.map((event) => event.eventType).sort(),
      "one llm_decision per provider call, one tool_call, nothing else",
    ).toEqual(["llm_decision", "llm_decision", "tool_call"]);
    expect(errors).toEqual([]);
    const [call1, call2] = decisions as [Item, Item];
    for (const [decision, usage] of [
      [call1, FIRST_USAGE],
      [call2, SECOND_USAGE],
    ] as const) {
      expect(decision.toolOutput).toMatchObject({
        promptTokens: usage.prompt,
        completionTokens: usage.completion,
        cacheReadTokens: CACHED_TOKENS,
      });
      expectPricedFromTable(decision, usage, { agentName: AGENT_NAME, userId: "", from, to, cacheReadTokens: 4 });
      expect(text((decision.toolInput as Item).messages), "the turn's input messages").toContain(QUESTION);
    }
    expect(text((call1.toolOutput as Item).messages), "the first answer calls the tool").toContain(TOOL_NAME);
    expect(text((call1.toolOutput as Item).messages)).toContain("Oslo");
    expect(text((call2.toolInput as Item).messages), "the second turn carries the tool's result").toContain(
      `tool-result: ${TOOL_NAME}`,
    );
    expect(call2.reasoning).toBe(FINAL_ANSWER);
    const tool = tools[0] as Item;
    expect(tool.toolName).toBe(TOOL_NAME);
    expect(tool.toolInput).toEqual({ city: "Oslo" });
    expect(tool.toolOutput).toEqual(TOOL_RESULT);
  });

  it("a workflow: the session under the workflow and the run's userId, its steps and the agent inside it, each call counted", async () => {
    const { key } = await createTestKey();
    const { app, workflow } = mastraApp(key);
    const run = await workflow.createRun({ resourceId: "mastra-resource-3" });
    const result = await run.start({
      inputData: { city: "Oslo" },
      tracingOptions: { metadata: { userId: "mastra-user-3" } },
    });
    await app.shutdown();
    expect(result.status).toBe("success");

    const sessions = await sessionsOf(api, key);
    expect(sessions).toHaveLength(1);
    const session = sessions[0] as Item;
    expect(session).toMatchObject({
      name: "invoke_workflow weather-report",
      agentName: "weather-report",
      userId: "mastra-user-3",
      status: "completed",
      promptTokens: FIRST_USAGE.prompt + SECOND_USAGE.prompt,
      completionTokens: FIRST_USAGE.completion + SECOND_USAGE.completion,
    });
    expect(session.metadata).toMatchObject({
      "mastra.metadata": { userId: "mastra-user-3", resourceId: "mastra-resource-3" },
    });
    expect(text(session.metadata)).not.toContain("otel.awaiting_root");
    const { events, decisions, tools } = await eventsOf(key, session);
    const changes = events.filter((event) => event.eventType === "state_change");
    expect(changes.map((change) => change.reasoning).sort()).toEqual([
      `invoke_agent ${AGENT_NAME}`,
      "workflow_step ask-weather",
      "workflow_step shout",
    ]);
    const shout = changes.find((change) => change.reasoning === "workflow_step shout") as Item;
    expect(shout.toolInput).toEqual({ answer: FINAL_ANSWER });
    expect(shout.toolOutput).toEqual({ loud: FINAL_ANSWER.toUpperCase() });
    expect(decisions).toHaveLength(2);
    expect(tools.map((tool) => [tool.toolName, tool.toolInput])).toEqual([[TOOL_NAME, { city: "Oslo" }]]);
  });

  it("a run exported children first, the root last: ends under its agent and user, each call counted exactly", async () => {
    const owner = await createTestKey();
    const recorded = new SpanRecorder();
    const { app, agent } = mastraApp(owner.key, { recorded });
    await agent.generate(QUESTION, { memory: { thread: "thread-long", resource: "mastra-user-4" } });
    await app.shutdown();
    await exportChildrenFirst(api, owner.key, recorded.spans);

    const sessions = await sessionsOf(api, owner.key);
    expect(sessions).toHaveLength(1);
    const session = sessions[0] as Item;
    expect(session).toMatchObject({
      agentName: AGENT_NAME,
      userId: "mastra-user-4",
      status: "completed",
      promptTokens: FIRST_USAGE.prompt + SECOND_USAGE.prompt,
      completionTokens: FIRST_USAGE.completion + SECOND_USAGE.completion,
    });
    expect(text(session.metadata)).not.toContain("otel.awaiting_root");
    const { decisions, tools } = await eventsOf(owner.key, session);
    expect(decisions.map((decision) => (decision.usage as Item).promptTokens)).toEqual([
      FIRST_USAGE.prompt,
      SECOND_USAGE.prompt,
    ]);
    expect(tools).toHaveLength(1);
    await expectCountedExactly(api, owner, "mastra-service");
  });

  it("a failing tool (exported as OTLP JSON): its error event names the tool and the reason; the run still ends", async () => {
    const { key } = await createTestKey();
    const { app, agent } = mastraApp(key, {
      execute: async () => {
        throw new Error("weather service unavailable");
      },
      protocol: "http/json",
    });
    await agent.generate(QUESTION, { memory: { thread: "thread-fail", resource: "mastra-user-2" } });
    await app.shutdown();

    const sessions = await sessionsOf(api, key);
    expect(sessions).toHaveLength(1);
    const session = sessions[0] as Item;
    expect(session).toMatchObject({ agentName: AGENT_NAME, userId: "mastra-user-2", status: "completed" });
    const { decisions, tools, errors } = await eventsOf(key, session);
    expect(decisions).toHaveLength(2);
    expect(tools).toHaveLength(1);
    expect((tools[0] as Item).toolInput).toEqual({ city: "Oslo" });
    expect(errors.map((error) => [error.toolName, error.reasoning])).toEqual([
      [TOOL_NAME, expect.stringContaining("weather service unavailable")],
    ]);
  });

  it("a run whose model call fails: the session fails with the provider's error, its error events carry it", async () => {
    const { key } = await createTestKey();
    // The fake server answers 404 on any other path: the provider's error, not retried.
    const { app, agent } = mastraApp(key, { modelUrl: `${chat.baseURL}/missing` });
    await expect(
      agent.generate(QUESTION, { memory: { thread: "thread-down", resource: "mastra-user-5" } }),
    ).rejects.toThrow();
    await app.shutdown();

    const sessions = await sessionsOf(api, key);
    expect(sessions).toHaveLength(1);
    const session = sessions[0] as Item;
    expect(session).toMatchObject({ agentName: AGENT_NAME, userId: "mastra-user-5", status: "failed", success: false });
    expect(String(session.failureReason)).toContain("No route");
    const { errors } = await eventsOf(key, session);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((error) => String(error.reasoning))).toEqual(
      expect.arrayContaining([expect.stringContaining("No route")]),
    );
  });
});
