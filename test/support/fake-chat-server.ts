/**
 * A fake OpenAI-compatible chat server on 127.0.0.1 that plays one scripted agent run, for the tests of the
 * OpenTelemetry instrumentations: `POST /v1/chat/completions` (JSON, or server-sent events when `stream` is
 * asked) answers
 * - a request with no `tool` message yet: a call of the tool `get_weather` with `{"city":"Oslo"}`
 *   (usage {@link FIRST_USAGE});
 * - a request carrying the tool's result: the final answer {@link FINAL_ANSWER} (usage {@link SECOND_USAGE}).
 * Never the network.
 */
import type { ServerResponse } from "node:http";
import { type FakeChatServer, startFakeModelServer } from "./fake-model-server.js";

export type { FakeChatServer } from "./fake-model-server.js";

export const TOOL_NAME = "get_weather";
export const TOOL_ARGUMENTS = { city: "Oslo" } as const;
export const TOOL_RESULT = { forecast: "sunny", celsius: 21 } as const;
export const FINAL_ANSWER = "It is sunny in Oslo, 21 °C.";
export const FIRST_USAGE = { prompt: 11, completion: 5 } as const;
export const SECOND_USAGE = { prompt: 17, completion: 7 } as const;
export const CACHED_TOKENS = 4;
/**
 * The model the tests ask for (and the server answers with): one the price table knows, so each model call's
 * event is priced from its row (docs/pricing.md).
 */
export const CHAT_MODEL = "gpt-4o-mini";

let counter = 0;

function usageOf(tokens: { prompt: number; completion: number }) {
  return {
    prompt_tokens: tokens.prompt,
    completion_tokens: tokens.completion,
    total_tokens: tokens.prompt + tokens.completion,
    prompt_tokens_details: { cached_tokens: CACHED_TOKENS, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

function answerTo(body: Record<string, unknown>) {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown }[]) : [];
  const toolAnswered = messages.some((message) => message.role === "tool");
  const id = `chatcmpl-fake${++counter}`;
  const model = String(body.model ?? CHAT_MODEL);
  if (toolAnswered) {
    return {
      id,
      model,
      message: { role: "assistant", content: FINAL_ANSWER, refusal: null },
      finish: "stop",
      usage: usageOf(SECOND_USAGE),
    };
  }
  return {
    id,
    model,
    message: {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [
        {
          id: `call_${counter}`,
          type: "function",
          function: { name: TOOL_NAME, arguments: JSON.stringify(TOOL_ARGUMENTS) },
        },
      ],
    },
    finish: "tool_calls",
    usage: usageOf(FIRST_USAGE),
  };
}

function send(res: ServerResponse, body: Record<string, unknown>): void {
  const answer = answerTo(body);
  const created = Math.floor(Date.now() / 1000);
  if (body.stream === true) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: unknown, finish: string | null, usage?: unknown) => ({
      id: answer.id,
      object: "chat.completion.chunk",
      created,
      model: answer.model,
      choices: finish === "usage" ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(usage === undefined ? {} : { usage }),
    });
    const { tool_calls: toolCalls, content } = answer.message as { tool_calls?: unknown[]; content: string | null };
    const chunks = [
      chunk({ role: "assistant", content: content ?? "" }, null),
      ...(toolCalls === undefined
        ? []
        : [chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...(call as object) })) }, null)]),
      chunk({}, answer.finish),
      chunk({}, "usage", answer.usage),
    ];
    for (const item of chunks) res.write(`data: ${JSON.stringify(item)}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: answer.id,
      object: "chat.completion",
      created,
      model: answer.model,
      choices: [{ index: 0, message: answer.message, logprobs: null, finish_reason: answer.finish }],
      usage: answer.usage,
      system_fingerprint: "fp_fake",
    }),
  );
}

/**
 * The fake chat server. `answerAfterMs` makes each answer take that long, as a model's does: a test pairing two
 * spans of one call by time needs calls longer than the clocks' slack (unlinked-call-pairs.ts CLOCK_SLACK_MS).
 */
export function startFakeChatServer(options: { answerAfterMs?: number } = {}): Promise<FakeChatServer> {
  const delay = options.answerAfterMs ?? 0;
  return startFakeModelServer("/v1/chat/completions", (body, res) => {
    if (delay === 0) send(res, body);
    else setTimeout(() => send(res, body), delay);
  });
}
