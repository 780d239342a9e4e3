/**
 * OpenLLMetry's OpenAI instrumentation alone (`@traceloop/instrumentation-openai`, no SDK), real, with the
 * standard OpenTelemetry SDK and OTLP/HTTP protobuf exporter: the app writes its agent and tool spans itself
 * under the GenAI conventions, the instrumentation the model calls. The run reads back whole.
 */
import { createRequire } from "node:module";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { OpenAIInstrumentation } from "@traceloop/instrumentation-openai";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
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

const TOOLS = [
  {
    type: "function" as const,
    function: { name: TOOL_NAME, parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];

const SERVICE = "traceloop-instrumented-service";

/** The scripted run: the agent's own root and tool spans, the instrumentation's model calls, traced by `provider`. */
async function agentRun(provider: TracerProvider, userId: string): Promise<void> {
  const instrumentation = new OpenAIInstrumentation({ traceContent: true });
  instrumentation.setTracerProvider(provider);
  const openaiModule = require("openai") as { OpenAI: typeof OpenAI };
  // As its SDK does: the OpenAI class itself.
  instrumentation.manuallyInstrument(openaiModule.OpenAI);
  const client = new openaiModule.OpenAI({ baseURL: chat.baseURL, apiKey: "x" });
  const tracer = provider.getTracer("weather-agent");
  await tracer.startActiveSpan(
    "invoke_agent weather-agent",
    {
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-agent", "user.id": userId },
    },
    async (root) => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "What is the weather in Oslo?" }];
      const first = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
      const request = first.choices[0]?.message as OpenAI.ChatCompletionMessage;
      const call = request.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      messages.push(request);
      const tool = tracer.startSpan(`execute_tool ${TOOL_NAME}`, {
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": TOOL_NAME,
          "gen_ai.tool.call.arguments": call.function.arguments,
          "gen_ai.tool.call.result": JSON.stringify(TOOL_RESULT),
        },
      });
      tool.end();
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(TOOL_RESULT) });
      await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
      root.end();
    },
  );
  expect(trace.getActiveSpan()).toBeUndefined();
  await provider.forceFlush();
  instrumentation.disable();
}

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

describe("@traceloop/instrumentation-openai", () => {
  it("maps whole: its chat spans are the model calls, with their messages and tokens", async () => {
    const { key } = await createTestKey();
    const provider = providerFor(key);
    const from = Date.now();
    await agentRun(provider, "tl-user-1");
    const to = Date.now();
    await provider.shutdown();

    await expectWholeRun(api, key, { agentName: "weather-agent", userId: "tl-user-1", from, to });
  });

  it("a long run exported children first, the root last: agent and user from the root, counted exactly", async () => {
    const owner = await createTestKey();
    const recorded = new InMemorySpanExporter();
    const provider = providerFor(owner.key, recorded);
    const from = Date.now();
    await agentRun(provider, "tl-user-2");
    const to = Date.now();
    await exportChildrenFirst(api, owner.key, recorded.getFinishedSpans());

    await expectWholeRun(api, owner.key, { agentName: "weather-agent", userId: "tl-user-2", from, to });
    await expectCountedExactly(api, owner, SERVICE);
  });
});
