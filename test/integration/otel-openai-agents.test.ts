/**
 * The OpenAI Agents SDK, real (`@openai/agents`): an `Agent` with a function tool, run with `run()` against the
 * fake Responses API server (the SDK's default API; once against the fake chat server through its Chat
 * Completions model), traced by OpenInference's instrumentation of it
 * (`@arizeai/openinference-instrumentation-openai-agents`) into an OTel tracer provider whose OTLP/HTTP
 * protobuf exporter posts to ats; the user and session set as a user does, with `setUser` / `setSession` of
 * `@arizeai/openinference-core` on the context. The SDK opens every run with a root of its own — "Agent
 * workflow", or the workflow name the user gives `withTrace` — and names the agent only on the agent span below
 * it: the session is the agent's, never "Agent workflow"'s, whichever of the two arrives first (docs/otel.md,
 * "A root that names a workflow, not an agent").
 */
import { createRequire } from "node:module";
import { setSession, setUser } from "@arizeai/openinference-core";
import { OpenAIAgentsInstrumentation } from "@arizeai/openinference-instrumentation-openai-agents";
import * as agents from "@openai/agents";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
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
  TOOL_ARGUMENTS,
  TOOL_NAME,
  TOOL_RESULT,
} from "../support/fake-chat-server.js";
import { startFakeResponsesServer } from "../support/fake-responses-server.js";
import { createTestKey, readAllEvents, settleCounts, startTestApi } from "../support/fixtures.js";
import {
  expectCountedExactly,
  expectWholeRun,
  exportChildrenFirst,
  sessionsOf,
  tracesExporter,
} from "../support/otel-library-run.js";

type Item = Record<string, unknown>;
type DefaultClient = Parameters<typeof agents.setDefaultOpenAIClient>[0];

let api: LocalApi;
let responses: FakeChatServer;
let chat: FakeChatServer;
/** The SDK's Chat Completions model on the fake chat server (the Responses API is its default). */
let chatModel: agents.OpenAIChatCompletionsModel;
const contextManager = new AsyncLocalStorageContextManager();

const SERVICE = "agents-service";
const AGENT = "Weather assistant";
/** The workflow name a user gives a run (`withTrace`), instead of the SDK's default "Agent workflow". */
const WORKFLOW = "Trip planning";
const QUESTION = "What is the weather in Oslo?";

beforeAll(async () => {
  [api, responses, chat] = await Promise.all([startTestApi(), startFakeResponsesServer(), startFakeChatServer()]);
  context.setGlobalContextManager(contextManager.enable());
  // The SDK's own OpenAI client (its `openai` 7), pointed at the fake server, as a user points it at a proxy.
  const agentsRequire = createRequire(createRequire(import.meta.url).resolve("@openai/agents-openai"));
  const { OpenAI } = agentsRequire("openai") as { OpenAI: new (options: object) => DefaultClient };
  agents.setDefaultOpenAIClient(new OpenAI({ baseURL: responses.baseURL, apiKey: "x" }));
  chatModel = new agents.OpenAIChatCompletionsModel(new OpenAI({ baseURL: chat.baseURL, apiKey: "x" }), CHAT_MODEL);
  // The SDK turns its tracing off by default when NODE_ENV is `test` (vitest's): on, as in any application.
  agents.setTracingDisabled(false);
});
afterAll(async () => {
  context.disable();
  await Promise.all([api.close(), responses.close(), chat.close()]);
});

/** A tracer provider exporting to ats (batch processor), or recording to `recorded` (exported later by hand). */
function providerFor(key: string, recorded?: InMemorySpanExporter): TracerProvider {
  return new TracerProvider({
    resource: resourceFromAttributes({ "service.name": SERVICE }),
    spanProcessors: [
      recorded === undefined
        ? new BatchSpanProcessor({ exporter: tracesExporter(api, key) })
        : new SimpleSpanProcessor({ exporter: recorded }),
    ],
  });
}

/** The agent, on the default model (the Responses API) or on `model`. */
function weatherAgent(model: agents.Model | string = CHAT_MODEL): agents.Agent {
  const getWeather = agents.tool({
    name: TOOL_NAME,
    description: "The weather of a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, ...TOOL_RESULT }),
  });
  return new agents.Agent({
    name: AGENT,
    instructions: "Answer questions about the weather.",
    model,
    tools: [getWeather],
  });
}

/**
 * The scripted run (two model calls, one tool call) under OpenInference's instrumentation, for `userId` (and the
 * conversation `<userId>-conversation`), in the workflow `workflow` (none: the SDK's default), through the
 * Responses API or (`chatCompletions`) the Chat Completions API; flushed.
 */
async function agentRun(
  provider: TracerProvider,
  userId: string,
  workflow?: string,
  chatCompletions = false,
): Promise<void> {
  const instrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(agents);
  const server = chatCompletions ? chat : responses;
  const calls = server.requests.length;
  const agent = chatCompletions ? weatherAgent(chatModel) : weatherAgent();
  try {
    const runContext = setUser(setSession(context.active(), { sessionId: `${userId}-conversation` }), { userId });
    const result = await context.with(runContext, () =>
      workflow === undefined
        ? agents.run(agent, QUESTION)
        : agents.withTrace(workflow, () => agents.run(agent, QUESTION)),
    );
    expect(result.finalOutput).toBe(FINAL_ANSWER);
    expect(server.requests.length - calls, "two calls of the model's API").toBe(2);
    await provider.forceFlush();
  } finally {
    instrumentation.uninstrument();
  }
}

/** The session's name: the user's workflow name, else (the default root is generic) its agent's stand-in. */
const sessionName = (workflow: string | undefined) => workflow ?? `invoke_agent ${AGENT}`;

/** The tool call's event carries the tool's real arguments and result. */
async function expectToolCall(key: string, sessionId: string): Promise<void> {
  const { events } = await readAllEvents(api, key, sessionId);
  const tools = events.filter((event) => event.eventType === "tool_call");
  expect(tools).toHaveLength(1);
  expect(tools[0]).toMatchObject({
    toolName: TOOL_NAME,
    toolInput: TOOL_ARGUMENTS,
    toolOutput: { city: TOOL_ARGUMENTS.city, ...TOOL_RESULT },
  });
}

/** Exports recorded spans as a root exported before its children would be: the root alone, then the rest. */
async function exportRootFirst(key: string, spans: readonly ReadableSpan[]): Promise<void> {
  const exporter = tracesExporter(api, key);
  const roots = spans.filter((span) => span.parentSpanContext === undefined);
  expect(roots).toHaveLength(1);
  for (const batch of [roots, spans.filter((span) => span.parentSpanContext !== undefined)]) {
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export([...batch], resolve),
    );
    expect(result.error, String(result.error)).toBeUndefined();
    expect(result.code).toBe(0);
    await settleCounts();
  }
  await exporter.shutdown();
}

describe("OpenAI Agents SDK (@openai/agents) with OpenInference's instrumentation", () => {
  it.each([
    ["the SDK's default workflow", undefined],
    ["a workflow name the user chose", WORKFLOW],
  ])(
    "%s, batch processor: one session under the real agent and user, exact tokens, every call",
    async (_case, workflow) => {
      const { key } = await createTestKey();
      const provider = providerFor(key);
      const userId = `agents-user-${workflow === undefined ? 1 : 2}`;
      const from = Date.now();
      await agentRun(provider, userId, workflow);
      const to = Date.now();
      await provider.shutdown();

      const { session } = await expectWholeRun(api, key, {
        agentName: AGENT,
        userId,
        from,
        to,
        cacheReadTokens: 2 * CACHED_TOKENS,
        conversationId: `${userId}-conversation`,
      });
      expect(session.name).toBe(sessionName(workflow));
      await expectToolCall(key, String(session.id));
    },
  );

  it("the Chat Completions model (generation spans), the default workflow: the same session, tokens and calls", async () => {
    const { key } = await createTestKey();
    const provider = providerFor(key);
    const userId = "agents-user-7";
    const from = Date.now();
    await agentRun(provider, userId, undefined, true);
    const to = Date.now();
    await provider.shutdown();

    const { session } = await expectWholeRun(api, key, {
      agentName: AGENT,
      userId,
      from,
      to,
      cacheReadTokens: 2 * CACHED_TOKENS,
      conversationId: `${userId}-conversation`,
    });
    expect(session.name).toBe(sessionName(undefined));
    await expectToolCall(key, String(session.id));
  });

  it.each([
    ["the SDK's default workflow", undefined],
    ["a workflow name the user chose", WORKFLOW],
  ])(
    "%s, exported children first (the agent span before the root): the agent's session, counted exactly",
    async (_case, workflow) => {
      const owner = await createTestKey();
      const recorded = new InMemorySpanExporter();
      const provider = providerFor(owner.key, recorded);
      const userId = `agents-user-${workflow === undefined ? 3 : 4}`;
      const from = Date.now();
      await agentRun(provider, userId, workflow);
      const to = Date.now();
      await exportChildrenFirst(api, owner.key, recorded.getFinishedSpans());

      const { session } = await expectWholeRun(api, owner.key, { agentName: AGENT, userId, from, to });
      expect(session.name).toBe(sessionName(workflow));
      await expectToolCall(owner.key, String(session.id));
      await expectCountedExactly(api, owner, SERVICE);
    },
  );

  it.each([
    ["the SDK's default workflow", undefined, SERVICE],
    ["a workflow name the user chose", WORKFLOW, WORKFLOW],
  ])(
    "%s, exported root first (the agent span after it): the session moves to the agent, counted exactly",
    async (_case, workflow, standIn) => {
      const owner = await createTestKey();
      const recorded = new InMemorySpanExporter();
      const provider = providerFor(owner.key, recorded);
      const userId = `agents-user-${workflow === undefined ? 5 : 6}`;
      await agentRun(provider, userId, workflow);
      await exportRootFirst(owner.key, recorded.getFinishedSpans());

      const sessions = await sessionsOf(api, owner.key);
      expect(sessions.map((each) => `${String(each.agentName)} / ${String(each.userId)}`)).toEqual([
        `${AGENT} / ${userId}`,
      ]);
      const session = sessions[0] as Item;
      expect(session).toMatchObject({ name: sessionName(workflow), status: "completed", success: true });
      // The root ended the session before its model calls arrived: their tokens are on their events, not summed
      // into the ended session (docs/otel.md, "The root span ends the session").
      const { events } = await readAllEvents(api, owner.key, String(session.id));
      const usages = events
        .filter((event) => event.eventType === "llm_decision")
        .sort((a, b) => String(a.occurredAt).localeCompare(String(b.occurredAt)))
        .map((event) => event.usage);
      expect(usages).toEqual([
        expect.objectContaining({ promptTokens: FIRST_USAGE.prompt, completionTokens: FIRST_USAGE.completion }),
        expect.objectContaining({ promptTokens: SECOND_USAGE.prompt, completionTokens: SECOND_USAGE.completion }),
      ]);
      await expectToolCall(owner.key, String(session.id));
      await expectCountedExactly(api, owner, standIn);
    },
  );
});
