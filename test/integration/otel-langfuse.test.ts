/**
 * Langfuse's TypeScript SDK, real: `@langfuse/tracing` observations exported by `@langfuse/otel`'s
 * LangfuseSpanProcessor configured as Langfuse documents it — its base URL pointed at ats and an ats API key
 * as its secret key, nothing else — so its own exporter posts OTLP JSON to `<api>/api/public/otel/v1/traces`
 * with `Authorization: Basic base64(<public key>:<secret key>)`. The app records its model calls against the
 * fake chat server as `generation` observations (model, input, output, usage_details, and in one run
 * cost_details), its tool as a `tool` observation, the run as an `agent` observation with the user and session
 * propagated, and an `event` observation. The children go out first (a flush before the root ends), the root last; the run reads back whole
 * (test/support/otel-library-run.ts).
 */
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import {
  propagateAttributes,
  setLangfuseTracerProvider,
  startActiveObservation,
  startObservation,
} from "@langfuse/tracing";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  CACHED_TOKENS,
  CHAT_MODEL,
  type FakeChatServer,
  FIRST_USAGE,
  startFakeChatServer,
  TOOL_NAME,
  TOOL_RESULT,
} from "../support/fake-chat-server.js";
import { createTestKey, readAllEvents, settleCounts, startTestApi, type TestKey } from "../support/fixtures.js";
import {
  expectCountedExactly,
  expectPricedFromTable,
  expectWholeRun,
  sessionsOf,
} from "../support/otel-library-run.js";

let api: LocalApi;
let chat: FakeChatServer;
const contextManager = new AsyncLocalStorageContextManager();
const require = createRequire(import.meta.url);
const { OpenAI: OpenAIClient } = require("openai") as { OpenAI: typeof OpenAI };

beforeAll(async () => {
  [api, chat] = await Promise.all([startTestApi(), startFakeChatServer()]);
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await Promise.all([api.close(), chat.close()]);
});

const SERVICE = "langfuse-service";
const TOOLS = [
  {
    type: "function" as const,
    function: { name: TOOL_NAME, parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];

/** The processor as Langfuse's docs configure it, with ats's base URL and an ats key as the secret key. */
function langfuseProcessor(key: string): LangfuseSpanProcessor {
  return new LangfuseSpanProcessor({ baseUrl: api.url, publicKey: "pk-lf-moving-to-ats", secretKey: key });
}

/** One model call recorded as a Langfuse generation (what `observeOpenAI` or a hand-written wrapper records). */
async function generation(
  client: OpenAI,
  messages: OpenAI.ChatCompletionMessageParam[],
  cost?: { readonly total: number },
): Promise<OpenAI.ChatCompletionMessage> {
  return startActiveObservation(
    "chat",
    async (observation) => {
      const answer = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
      const usage = answer.usage as OpenAI.CompletionUsage;
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      const message = answer.choices[0]?.message as OpenAI.ChatCompletionMessage;
      observation.update({
        model: answer.model,
        modelParameters: { temperature: 0 },
        input: messages,
        output: message,
        // Langfuse's integrations split the cached part off `input`.
        usageDetails: {
          input: usage.prompt_tokens - cached,
          input_cached_tokens: cached,
          output: usage.completion_tokens,
        },
        ...(cost === undefined ? {} : { costDetails: cost }),
      });
      return message;
    },
    { asType: "generation" },
  );
}

/** The scripted run: the agent, two generations around the tool; the children exported before the root ends. */
async function run(processor: LangfuseSpanProcessor, user: string, firstCost?: { readonly total: number }) {
  const client = new OpenAIClient({ baseURL: chat.baseURL, apiKey: "x" });
  return startActiveObservation(
    "weather-agent",
    async (agent) =>
      propagateAttributes(
        { userId: user, sessionId: `${user}-conversation`, metadata: { plan: "pro" }, tags: ["beta"] },
        async () => {
          agent.update({ input: { question: "What is the weather in Oslo?" } });
          const messages: OpenAI.ChatCompletionMessageParam[] = [
            { role: "user", content: "What is the weather in Oslo?" },
          ];
          const request = await generation(client, messages, firstCost);
          const call = request.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
          messages.push(request);
          const result = await startActiveObservation(
            TOOL_NAME,
            async (tool) => {
              tool.update({ input: JSON.parse(call.function.arguments), output: TOOL_RESULT });
              return TOOL_RESULT;
            },
            { asType: "tool" },
          );
          startObservation("forecast-received", { input: { city: "Oslo" }, output: result }, { asType: "event" });
          messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
          const answer = await generation(client, messages);
          agent.update({ output: answer.content });
          // A long run's children go out as they end: exported (and counted) before the root.
          await processor.forceFlush();
          await settleCounts();
          return answer.content;
        },
      ),
    { asType: "agent" },
  );
}

/** A tracer provider whose only processor is Langfuse's, made the Langfuse SDK's provider. */
function tracedBy(processor: LangfuseSpanProcessor): TracerProvider {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": SERVICE }),
    spanProcessors: [processor],
  });
  setLangfuseTracerProvider(provider);
  return provider;
}

describe("Langfuse's TypeScript SDK (@langfuse/tracing + @langfuse/otel), at its own path with Basic authentication", () => {
  let owner: TestKey;
  beforeAll(async () => {
    owner = await createTestKey();
  });

  it("lands as one session with the real agent and user, exact tokens, each model and tool call", async () => {
    // What reaches the server: the exporter's path, scheme and encoding (recorded beside the API's own handler).
    const exports: string[] = [];
    const record = (request: IncomingMessage) => {
      if (request.method === "POST" && request.url?.includes("/otel/")) {
        const scheme = request.headers.authorization?.split(" ")[0];
        exports.push(
          `${request.url} ${scheme} ${request.headers["content-type"]} ${request.headers["x-langfuse-sdk-name"]}`,
        );
      }
    };
    api.server.on("request", record);
    const processor = langfuseProcessor(owner.key);
    const provider = tracedBy(processor);
    const from = Date.now();
    await run(processor, "langfuse-user-1");
    const to = Date.now();
    await provider.forceFlush();
    await provider.shutdown();
    api.server.off("request", record);
    // The children in one export before the root ended, the root in the last.
    expect(exports).toEqual([
      "/api/public/otel/v1/traces Basic application/json javascript",
      "/api/public/otel/v1/traces Basic application/json javascript",
    ]);

    const { session } = await expectWholeRun(api, owner.key, {
      agentName: "weather-agent",
      userId: "langfuse-user-1",
      from,
      to,
      cacheReadTokens: 2 * CACHED_TOKENS,
      conversationId: "langfuse-user-1-conversation",
    });
    expect(session.metadata).toMatchObject({
      resource: { "service.name": SERVICE },
      "langfuse.trace.metadata": { plan: "pro" },
      "langfuse.trace.tags": ["beta"],
    });
    await expectCountedExactly(api, owner, SERVICE);
  });

  it("an observation at level ERROR is an error event with its status message; the run still completes", async () => {
    const key = await createTestKey();
    const provider = tracedBy(langfuseProcessor(key.key));
    await startActiveObservation(
      "weather-agent",
      async () =>
        startActiveObservation(
          TOOL_NAME,
          async (tool) => {
            tool.update({ input: { city: "Oslo" }, level: "ERROR", statusMessage: "weather service down" });
          },
          { asType: "tool" },
        ),
      { asType: "agent" },
    );
    await provider.forceFlush();
    await provider.shutdown();

    const [session] = await sessionsOf(api, key.key);
    expect(session).toMatchObject({ agentName: "weather-agent", status: "completed" });
    const { events } = await readAllEvents(api, key.key, String(session?.id));
    expect(events.map((event) => [event.eventType, event.toolName, event.reasoning ?? null])).toEqual(
      expect.arrayContaining([
        ["tool_call", TOOL_NAME, null],
        ["error", TOOL_NAME, "weather service down"],
      ]),
    );
  });

  it("a generation's cost_details is its reported cost; a generation without one is priced from the table", async () => {
    const key = await createTestKey();
    const processor = langfuseProcessor(key.key);
    const provider = tracedBy(processor);
    const from = Date.now();
    await run(processor, "langfuse-user-2", { total: 0.0123 });
    await provider.forceFlush();
    await provider.shutdown();

    const [session] = await sessionsOf(api, key.key);
    expect(session).toMatchObject({ agentName: "weather-agent", userId: "langfuse-user-2", status: "completed" });
    const { events } = await readAllEvents(api, key.key, String(session?.id));
    const decisions = events
      .filter((event) => event.eventType === "llm_decision")
      .sort((a, b) => String(a.occurredAt).localeCompare(String(b.occurredAt)));
    expect(decisions).toHaveLength(2);
    expect(events.filter((event) => event.eventType === "state_change")).toEqual([
      expect.objectContaining({ reasoning: "forecast-received", toolInput: { city: "Oslo" } }),
    ]);
    expect(decisions[0]).toMatchObject({
      model: CHAT_MODEL,
      estimatedCost: 0.0123,
      costSource: "reported",
      usage: { promptTokens: FIRST_USAGE.prompt, completionTokens: FIRST_USAGE.completion },
    });
    expectPricedFromTable(
      decisions[1] as Record<string, unknown>,
      { prompt: 17, completion: 7 },
      {
        agentName: "weather-agent",
        userId: "langfuse-user-2",
        from,
        to: Date.now(),
        cacheReadTokens: CACHED_TOKENS,
      },
    );
  });
});
