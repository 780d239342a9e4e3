/**
 * The OpenTelemetry project's own `@opentelemetry/instrumentation-openai`, real, with message content on: its
 * `chat` spans carry the GenAI attributes, and the messages come as OTel log records (`gen_ai.user.message`,
 * `gen_ai.choice`, …) exported with the standard OTLP/HTTP log exporter to POST /api/otel/v1/logs. The agent
 * (root `invoke_agent` and `execute_tool` spans) is written by hand under the GenAI conventions, as an app
 * using this instrumentation does. The run reads back whole whichever of the logs and the spans arrives first.
 */
import { createRequire } from "node:module";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
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
import { createTestKey, settleCounts, startTestApi } from "../support/fixtures.js";
import {
  expectCountedExactly,
  expectWholeRun,
  exportChildrenFirst,
  tracesExporter,
} from "../support/otel-library-run.js";

let api: LocalApi;
let chat: FakeChatServer;
const contextManager = new AsyncLocalStorageContextManager();
const instrumentation = new OpenAIInstrumentation({ captureMessageContent: true });
// The instrumentation patches the CommonJS `openai` module as it is required (an ES import is not hooked here).
const require = createRequire(import.meta.url);
let OpenAIClient: typeof OpenAI;

beforeAll(async () => {
  [api, chat] = await Promise.all([startTestApi(), startFakeChatServer()]);
  context.setGlobalContextManager(contextManager.enable());
  instrumentation.enable();
  OpenAIClient = (require("openai") as { OpenAI: typeof OpenAI }).OpenAI;
});
afterAll(async () => {
  instrumentation.disable();
  context.disable();
  await Promise.all([api.close(), chat.close()]);
});

const SERVICE = "openai-instrumented-service";

function exportersFor(key: string, spans?: InMemorySpanExporter) {
  const resource = resourceFromAttributes({ "service.name": SERVICE });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [
      spans === undefined
        ? new BatchSpanProcessor({ exporter: tracesExporter(api, key) })
        : new SimpleSpanProcessor({ exporter: spans }),
    ],
  });
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [
      new BatchLogRecordProcessor({
        exporter: new OTLPLogExporter({
          url: `${api.url}/api/otel/v1/logs`,
          headers: { authorization: `Bearer ${key}` },
        }),
      }),
    ],
  });
  instrumentation.setTracerProvider(tracerProvider);
  instrumentation.setLoggerProvider(loggerProvider);
  return { tracerProvider, loggerProvider };
}

const TOOLS = [
  {
    type: "function" as const,
    function: { name: TOOL_NAME, parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];

/** The scripted agent: a root span naming agent and user, two model calls, the tool call between them. */
async function runAgent(tracerProvider: TracerProvider, agentName: string, userId: string): Promise<void> {
  const tracer = tracerProvider.getTracer("weather-agent");
  const client = new OpenAIClient({ baseURL: chat.baseURL, apiKey: "x" });
  await tracer.startActiveSpan(
    `invoke_agent ${agentName}`,
    { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agentName, "user.id": userId } },
    async (root) => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "What is the weather in Oslo?" },
      ];
      const first = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
      const request = first.choices[0]?.message as OpenAI.ChatCompletionMessage;
      const call = request.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      messages.push(request);
      const result = await tracer.startActiveSpan(
        `execute_tool ${TOOL_NAME}`,
        {
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": TOOL_NAME,
            "gen_ai.tool.call.id": call.id,
            "gen_ai.tool.call.arguments": call.function.arguments,
          },
        },
        async (span) => {
          const output = JSON.stringify(TOOL_RESULT);
          span.setAttribute("gen_ai.tool.call.result", output);
          span.end();
          return output;
        },
      );
      messages.push({ role: "tool", tool_call_id: call.id, content: result });
      await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
      root.end();
    },
  );
  expect(trace.getActiveSpan()).toBeUndefined();
}

describe("@opentelemetry/instrumentation-openai (messages as log records)", () => {
  it("maps whole with the log records exported before the spans", async () => {
    const { key } = await createTestKey();
    const { tracerProvider, loggerProvider } = exportersFor(key);
    const from = Date.now();
    await runAgent(tracerProvider, "otel-openai-agent", "otel-user-1");
    const to = Date.now();
    await loggerProvider.forceFlush();
    await tracerProvider.forceFlush();
    await Promise.all([loggerProvider.shutdown(), tracerProvider.shutdown()]);

    const { events } = await expectWholeRun(api, key, {
      agentName: "otel-openai-agent",
      userId: "otel-user-1",
      from,
      to,
    });
    const first = events.find((event) => event.eventType === "llm_decision");
    expect(first?.toolInput).toMatchObject({
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "What is the weather in Oslo?" },
      ],
    });
  });

  it("maps whole with the spans exported before the log records", async () => {
    const { key } = await createTestKey();
    const { tracerProvider, loggerProvider } = exportersFor(key);
    const from = Date.now();
    await runAgent(tracerProvider, "otel-openai-agent-2", "otel-user-2");
    const to = Date.now();
    await tracerProvider.forceFlush();
    await loggerProvider.forceFlush();
    await Promise.all([loggerProvider.shutdown(), tracerProvider.shutdown()]);

    await expectWholeRun(api, key, { agentName: "otel-openai-agent-2", userId: "otel-user-2", from, to });
  });

  it("a long run exported children first, the root last: the session ends under its real agent and user, counted exactly", async () => {
    const owner = await createTestKey();
    const recorded = new InMemorySpanExporter();
    const { tracerProvider, loggerProvider } = exportersFor(owner.key, recorded);
    const from = Date.now();
    await runAgent(tracerProvider, "otel-openai-agent-3", "otel-user-3");
    const to = Date.now();
    // The messages first, then the spans as the batch processor sends a long run's: children, then the root.
    await loggerProvider.forceFlush();
    await settleCounts();
    await exportChildrenFirst(api, owner.key, recorded.getFinishedSpans());
    await Promise.all([loggerProvider.shutdown(), tracerProvider.shutdown()]);

    await expectWholeRun(api, owner.key, { agentName: "otel-openai-agent-3", userId: "otel-user-3", from, to });
    await expectCountedExactly(api, owner, SERVICE);
  });
});
