/**
 * OpenInference, real, against the fake chat server: `@arizeai/openinference-instrumentation-openai` with an
 * agent written with `@arizeai/openinference-core` (`traceAgent`, `traceTool`, `setUser`, `setSession`), and
 * `@arizeai/openinference-instrumentation-langchain` with a LangChain agent (`@langchain/openai`'s
 * ChatOpenAI, a `@langchain/core` tool, the run named `weather-agent`, the session in its metadata). Each run
 * is exported with the standard OTLP/HTTP protobuf exporter and reads back whole.
 */
import { createRequire } from "node:module";
import { setSession, setUser, traceAgent, traceTool } from "@arizeai/openinference-core";
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, it } from "vitest";
import * as z from "zod";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  CACHED_TOKENS,
  CHAT_MODEL,
  type FakeChatServer,
  startFakeChatServer,
  TOOL_NAME,
  TOOL_RESULT,
} from "../support/fake-chat-server.js";
import { createTestKey, startTestApi } from "../support/fixtures.js";
import {
  expectCountedExactly,
  expectWholeRun,
  exportChildrenFirst,
  tracesExporter,
} from "../support/otel-library-run.js";

let api: LocalApi;
let chat: FakeChatServer;
const contextManager = new AsyncLocalStorageContextManager();
const require = createRequire(import.meta.url);

beforeAll(async () => {
  [api, chat] = await Promise.all([startTestApi(), startFakeChatServer()]);
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await Promise.all([api.close(), chat.close()]);
});

const SERVICE = "openinference-service";

/** A tracer provider exporting to ats, or recording to `recorded` (exported later, children first). */
function providerFor(key: string, recorded?: InMemorySpanExporter) {
  return new TracerProvider({
    resource: resourceFromAttributes({ "service.name": SERVICE }),
    spanProcessors: [
      recorded === undefined
        ? new BatchSpanProcessor({ exporter: tracesExporter(api, key) })
        : new SimpleSpanProcessor({ exporter: recorded }),
    ],
  });
}

const TOOLS = [
  {
    type: "function" as const,
    function: { name: TOOL_NAME, parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];

/**
 * The scripted run with the openai instrumentation and an agent of openinference-core (traceAgent,
 * traceTool, the user and session set on the context), traced by `provider`.
 */
async function openAiAgentRun(provider: TracerProvider, userId: string): Promise<void> {
  const tracer = provider.getTracer("weather-agent");
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
  const openaiModule = require("openai") as { OpenAI: typeof OpenAI };
  instrumentation.manuallyInstrument(
    openaiModule as unknown as Parameters<OpenAIInstrumentation["manuallyInstrument"]>[0],
  );
  try {
    const client = new openaiModule.OpenAI({ baseURL: chat.baseURL, apiKey: "x" });
    const getWeather = traceTool(async (_args: { city: string }) => TOOL_RESULT, { name: TOOL_NAME, tracer });
    const agent = traceAgent(
      async (question: string) => {
        const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: question }];
        const first = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
        const request = first.choices[0]?.message as OpenAI.ChatCompletionMessage;
        const call = request.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
        messages.push(request);
        const result = await getWeather(JSON.parse(call.function.arguments) as { city: string });
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
        const second = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
        return second.choices[0]?.message.content;
      },
      { name: "weather-agent", tracer },
    );
    const runContext = setUser(setSession(context.active(), { sessionId: `${userId}-conversation` }), { userId });
    await context.with(runContext, () => agent("What is the weather in Oslo?"));
    await provider.forceFlush();
  } finally {
    instrumentation.disable();
  }
}

describe("OpenInference", () => {
  it("openai instrumentation with an agent of openinference-core: LLM, TOOL and AGENT spans, user and session from context", async () => {
    const { key } = await createTestKey();
    const provider = providerFor(key);
    const from = Date.now();
    await openAiAgentRun(provider, "oi-user-1");
    const to = Date.now();
    await provider.shutdown();

    await expectWholeRun(api, key, {
      agentName: "weather-agent",
      userId: "oi-user-1",
      from,
      to,
      cacheReadTokens: 2 * CACHED_TOKENS,
      conversationId: "oi-user-1-conversation",
    });
  });

  it("a long run exported children first, the root AGENT span last: it names the agent, counted exactly", async () => {
    const owner = await createTestKey();
    const recorded = new InMemorySpanExporter();
    const provider = providerFor(owner.key, recorded);
    const from = Date.now();
    await openAiAgentRun(provider, "oi-user-2");
    const to = Date.now();
    await exportChildrenFirst(api, owner.key, recorded.getFinishedSpans());

    await expectWholeRun(api, owner.key, { agentName: "weather-agent", userId: "oi-user-2", from, to });
    await expectCountedExactly(api, owner, SERVICE);
  });

  it("LangChain instrumentation with a LangChain agent: the run's chain names the agent, its metadata the session", async () => {
    const { key } = await createTestKey();
    const provider = providerFor(key);
    const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
    instrumentation.manuallyInstrument(CallbackManagerModule);
    try {
      const getWeather = tool(async ({ city }: { city: string }) => JSON.stringify({ city, ...TOOL_RESULT }), {
        name: TOOL_NAME,
        description: "The weather of a city",
        schema: z.object({ city: z.string() }),
      });
      const model = new ChatOpenAI({
        model: CHAT_MODEL,
        apiKey: "x",
        configuration: { baseURL: chat.baseURL },
      }).bindTools([getWeather]);
      // Without an AsyncLocalStorage of LangChain's own, the run's config is handed on explicitly.
      const agent = RunnableLambda.from(async (question: string, config) => {
        const messages: BaseMessage[] = [new HumanMessage(question)];
        const first = await model.invoke(messages, config);
        messages.push(first);
        for (const call of first.tool_calls ?? []) messages.push(await getWeather.invoke(call, config));
        const second = await model.invoke(messages, config);
        return second.content;
      }).withConfig({ runName: "weather-agent" });
      const from = Date.now();
      await context.with(setUser(context.active(), { userId: "lc-user-1" }), () =>
        agent.invoke("What is the weather in Oslo?", { metadata: { session_id: "lc-conversation-1" } }),
      );
      const to = Date.now();
      await provider.forceFlush();

      await expectWholeRun(api, key, {
        agentName: "weather-agent",
        userId: "lc-user-1",
        from,
        to,
        cacheReadTokens: 2 * CACHED_TOKENS,
        conversationId: "lc-conversation-1",
      });
    } finally {
      instrumentation.disable();
      await provider.shutdown();
    }
  });
});
