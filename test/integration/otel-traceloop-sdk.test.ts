/**
 * OpenLLMetry's Node.js SDK, real: `@traceloop/node-server-sdk` initialised as its documentation says — its
 * own OTLP/HTTP protobuf exporter pointed at ats (`baseUrl` = `<api>/api/otel`, the API key as `apiKey`), its
 * OpenAI instrumentation, the agent in `withAgent` with the user and session as association properties, the
 * tool in `withTool` — against the fake chat server. The run reads back whole. (One test file of its own:
 * the SDK is a process-wide singleton.)
 */
import { createRequire } from "node:module";
import * as traceloop from "@traceloop/node-server-sdk";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  CHAT_MODEL,
  type FakeChatServer,
  startFakeChatServer,
  TOOL_NAME,
  TOOL_RESULT,
} from "../support/fake-chat-server.js";
import { createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";
import { expectCountedExactly, expectWholeRun } from "../support/otel-library-run.js";

let api: LocalApi;
let chat: FakeChatServer;
let owner: TestKey;
const require = createRequire(import.meta.url);
const { OpenAI: OpenAIClient } = require("openai") as { OpenAI: typeof OpenAI };

beforeAll(async () => {
  [api, chat, owner] = await Promise.all([startTestApi(), startFakeChatServer(), createTestKey()]);
  traceloop.initialize({
    appName: "traceloop-service",
    baseUrl: `${api.url}/api/otel`,
    apiKey: owner.key,
    // Nothing but ats: no prompt registry sync with Traceloop's cloud.
    traceloopSyncEnabled: false,
    silenceInitializationMessage: true,
    instrumentModules: { openAI: OpenAIClient },
  });
});
afterAll(async () => {
  await Promise.all([api.close(), chat.close()]);
});

const TOOLS = [
  {
    type: "function" as const,
    function: { name: TOOL_NAME, parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];

describe("OpenLLMetry's Node.js SDK (@traceloop/node-server-sdk)", () => {
  it("withAgent / withTool and the OpenAI instrumentation: the tool call and the association properties' user map", async () => {
    const client = new OpenAIClient({ baseURL: chat.baseURL, apiKey: "x" });
    const from = Date.now();
    await traceloop.withAgent(
      {
        name: "weather-agent",
        associationProperties: { userId: "traceloop-user-1", sessionId: "traceloop-conversation-1" },
      },
      async () => {
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: "user", content: "What is the weather in Oslo?" },
        ];
        const first = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
        // A long run's spans go out as they end, children first: the batch processor's export of the first
        // model call, then of the tool, the root's last.
        await traceloop.forceFlush();
        const request = first.choices[0]?.message as OpenAI.ChatCompletionMessage;
        const call = request.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
        messages.push(request);
        const result = await traceloop.withTool(
          { name: TOOL_NAME },
          async (_args: { city: string }) => TOOL_RESULT,
          JSON.parse(call.function.arguments) as { city: string },
        );
        await traceloop.forceFlush();
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
        const second = await client.chat.completions.create({ model: CHAT_MODEL, messages, tools: TOOLS });
        return second.choices[0]?.message.content;
      },
    );
    const to = Date.now();
    await traceloop.forceFlush();

    await expectWholeRun(api, owner.key, {
      agentName: "weather-agent",
      userId: "traceloop-user-1",
      from,
      to,
      conversationId: "traceloop-conversation-1",
    });
    await expectCountedExactly(api, owner, "traceloop-service");
  });
});
