/**
 * The Vercel AI SDK, real, against the fake chat server: the current `ai` with the `@ai-sdk/otel`
 * integration (GenAI spans; the user id in `ai.settings.context.userId` when the app includes it), and an
 * earlier major (`ai` 6, installed as `ai-legacy`) whose built-in telemetry emits the SDK's own span shapes
 * (`ai.generateText`, `ai.generateText.doGenerate`, `ai.toolCall`, `ai.telemetry.metadata.*`). Each run is
 * exported with the standard OTLP/HTTP protobuf exporter and reads back whole (test/support/otel-library-run.ts).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { OpenTelemetry } from "@ai-sdk/otel";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { generateText, stepCountIs, tool } from "ai";
import { generateText as legacyGenerateText, stepCountIs as legacyStepCountIs, tool as legacyTool } from "ai-legacy";
import { createOpenAICompatible as legacyOpenAICompatible } from "ai-legacy-openai-compatible";
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

beforeAll(async () => {
  [api, chat] = await Promise.all([startTestApi(), startFakeChatServer()]);
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await Promise.all([api.close(), chat.close()]);
});

/** A tracer provider exporting to ats, or recording to `recorded` (exported later, children first). */
function providerFor(key: string, service: string, recorded?: InMemorySpanExporter) {
  return new TracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [
      recorded === undefined
        ? new BatchSpanProcessor({ exporter: tracesExporter(api, key) })
        : new SimpleSpanProcessor({ exporter: recorded }),
    ],
  });
}

const QUESTION = "What is the weather in Oslo?";
const weather = async () => TOOL_RESULT;

/** The scripted run with the current `ai` and @ai-sdk/otel, traced by `provider`. */
async function currentRun(provider: TracerProvider, userId: string) {
  const model = createOpenAICompatible({ name: "fake", baseURL: chat.baseURL, apiKey: "x", includeUsage: true })(
    CHAT_MODEL,
  );
  await generateText({
    model,
    prompt: QUESTION,
    tools: { [TOOL_NAME]: tool({ inputSchema: z.object({ city: z.string() }), execute: weather }) },
    stopWhen: stepCountIs(3),
    runtimeContext: { userId, sessionId: `${userId}-conversation` },
    telemetry: {
      functionId: "weather-agent",
      includeRuntimeContext: { userId: true, sessionId: true },
      integrations: new OpenTelemetry({
        tracer: provider.getTracer("ai"),
        runtimeContext: true,
        agentSpanName: "functionId",
      }),
    },
  });
}

/** The scripted run with `ai` 6's built-in telemetry, traced by `provider`. */
async function legacyRun(provider: TracerProvider, userId: string) {
  const model = legacyOpenAICompatible({ name: "fake", baseURL: chat.baseURL, apiKey: "x", includeUsage: true })(
    CHAT_MODEL,
  );
  await legacyGenerateText({
    model,
    prompt: QUESTION,
    tools: { [TOOL_NAME]: legacyTool({ inputSchema: z.object({ city: z.string() }), execute: weather }) },
    stopWhen: legacyStepCountIs(3),
    experimental_telemetry: {
      isEnabled: true,
      functionId: "weather-agent-legacy",
      metadata: { userId, sessionId: `${userId}-conversation` },
      tracer: provider.getTracer("ai"),
    },
  });
}

describe("the Vercel AI SDK", () => {
  it("current `ai` with @ai-sdk/otel: GenAI spans, the user from ai.settings.context.userId, cache reads kept", async () => {
    const { key } = await createTestKey();
    const provider = providerFor(key, "vercel-service");
    const from = Date.now();
    await currentRun(provider, "vercel-user-1");
    const to = Date.now();
    await provider.forceFlush();
    await provider.shutdown();

    await expectWholeRun(api, key, {
      agentName: "weather-agent",
      userId: "vercel-user-1",
      from,
      to,
      cacheReadTokens: 2 * CACHED_TOKENS,
      conversationId: "vercel-user-1-conversation",
    });
  });

  it("`ai` 6 (the SDK's own span shapes): ai.generateText / doGenerate / ai.toolCall, the user from ai.telemetry.metadata.userId", async () => {
    const { key } = await createTestKey();
    const provider = providerFor(key, "vercel-legacy-service");
    const from = Date.now();
    await legacyRun(provider, "legacy-user-1");
    const to = Date.now();
    await provider.forceFlush();
    await provider.shutdown();

    await expectWholeRun(api, key, {
      agentName: "weather-agent-legacy",
      userId: "legacy-user-1",
      from,
      to,
      cacheReadTokens: 2 * CACHED_TOKENS,
      conversationId: "legacy-user-1-conversation",
    });
  });

  it.each([
    { shape: "current (@ai-sdk/otel)", run: currentRun, agentName: "weather-agent" },
    { shape: "ai 6 (its own span shapes)", run: legacyRun, agentName: "weather-agent-legacy" },
  ])(
    "$shape: a long run exported children first, the root last, ends under its agent and user, counted exactly",
    async ({ run, agentName }) => {
      const owner = await createTestKey();
      const recorded = new InMemorySpanExporter();
      const provider = providerFor(owner.key, "vercel-long-run", recorded);
      const from = Date.now();
      await run(provider, "long-run-user");
      const to = Date.now();
      await exportChildrenFirst(api, owner.key, recorded.getFinishedSpans());

      await expectWholeRun(api, owner.key, { agentName, userId: "long-run-user", from, to });
      await expectCountedExactly(api, owner, "vercel-long-run");
    },
  );
});
