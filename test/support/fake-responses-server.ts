/**
 * A fake OpenAI Responses API server on 127.0.0.1 that plays the scripted agent run of
 * test/support/fake-chat-server.ts through `POST /v1/responses` (what the OpenAI Agents SDK calls by default):
 * - a request whose input holds no `function_call_output` yet: a call of the tool `get_weather` with
 *   `{"city":"Oslo"}` (usage {@link FIRST_USAGE});
 * - a request carrying the tool's output: the final answer {@link FINAL_ANSWER} (usage {@link SECOND_USAGE}).
 * JSON answers only (no streaming). Never the network.
 */
import {
  CACHED_TOKENS,
  CHAT_MODEL,
  FINAL_ANSWER,
  FIRST_USAGE,
  SECOND_USAGE,
  TOOL_ARGUMENTS,
  TOOL_NAME,
} from "./fake-chat-server.js";
import { type FakeChatServer, sendError, startFakeModelServer } from "./fake-model-server.js";

let counter = 0;

function usageOf(tokens: { prompt: number; completion: number }) {
  return {
    input_tokens: tokens.prompt,
    input_tokens_details: { cached_tokens: CACHED_TOKENS },
    output_tokens: tokens.completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: tokens.prompt + tokens.completion,
  };
}

/** The Responses API object answering `body` (the script above). */
function responseTo(body: Record<string, unknown>) {
  const input = Array.isArray(body.input) ? (body.input as { type?: unknown }[]) : [];
  const toolAnswered = input.some((item) => item.type === "function_call_output");
  const id = ++counter;
  const output = toolAnswered
    ? [
        {
          type: "message",
          id: `msg_fake${id}`,
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: FINAL_ANSWER, annotations: [] }],
        },
      ]
    : [
        {
          type: "function_call",
          id: `fc_fake${id}`,
          call_id: `call_${id}`,
          name: TOOL_NAME,
          arguments: JSON.stringify(TOOL_ARGUMENTS),
          status: "completed",
        },
      ];
  return {
    id: `resp_fake${id}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: typeof body.instructions === "string" ? body.instructions : null,
    model: String(body.model ?? CHAT_MODEL),
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: Array.isArray(body.tools) ? body.tools : [],
    usage: usageOf(toolAnswered ? SECOND_USAGE : FIRST_USAGE),
  };
}

/** Starts the server; `baseURL` is `http://127.0.0.1:<port>/v1`, `requests` the bodies of `/v1/responses`. */
export function startFakeResponsesServer(): Promise<FakeChatServer> {
  return startFakeModelServer("/v1/responses", (body, res) => {
    if (body.stream === true) {
      sendError(res, 400, "This fake does not stream");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(responseTo(body)));
  });
}
