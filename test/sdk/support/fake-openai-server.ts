/**
 * A fake OpenAI-compatible HTTP server on 127.0.0.1 for the `wrapOpenAI`
 * tests: `POST /v1/chat/completions` and `POST /v1/responses`, as JSON or
 * server-sent events. Never the network.
 *
 * Each answer is deterministic and steered per request by headers (set with
 * the openai client's `{ headers }` request option):
 * - `x-fake-answer`: the answer text (default `Echo: <last user text>`), streamed word by word;
 * - `x-fake-usage`: `prompt,completion` tokens (default `7,3`; total is their sum);
 * - `x-fake-model`: the model the response names (default the requested one);
 * - `x-fake-cached`, `x-fake-reasoning`: the cached prompt tokens and reasoning tokens in the usage's details
 *   (default 0; a chat stream's usage chunk carries the details only when one of them is set);
 * - `x-fake-status`: answer with this HTTP status and an OpenAI error body;
 * - `x-fake-break-after`: in a stream, cut the connection after this many events.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Record<string, unknown>;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1`: the client's `baseURL`. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  close(): Promise<void>;
}

export const ERROR_BODIES: Readonly<Record<number, { message: string; type: string; code: string | null }>> = {
  400: { message: "The model `nope` does not exist", type: "invalid_request_error", code: "model_not_found" },
  429: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
  500: { message: "The server had an error while processing your request", type: "server_error", code: null },
};

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join(" ");
}

function lastUserText(items: unknown): string {
  if (typeof items === "string") return items;
  if (!Array.isArray(items)) return "";
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as { role?: unknown; content?: unknown };
    if (item.role === "user") return textOf(item.content);
  }
  return "";
}

interface Plan {
  model: string;
  answer: string;
  words: string[];
  prompt: number;
  completion: number;
  cached: number | undefined;
  reasoning: number | undefined;
  breakAfter: number | undefined;
}

function planOf(request: FakeRequest): Plan {
  const body = request.body;
  const model = header(request, "x-fake-model") ?? String(body.model);
  const answer =
    header(request, "x-fake-answer") ??
    `Echo: ${lastUserText(request.path.endsWith("/responses") ? body.input : body.messages)}`;
  const [prompt = 7, completion = 3] = (header(request, "x-fake-usage") ?? "7,3").split(",").map(Number);
  const breakAfter = header(request, "x-fake-break-after");
  const cached = header(request, "x-fake-cached");
  const reasoning = header(request, "x-fake-reasoning");
  return {
    model,
    answer,
    words: answer.split(/(?<= )/),
    prompt,
    completion,
    cached: cached === undefined ? undefined : Number(cached),
    reasoning: reasoning === undefined ? undefined : Number(reasoning),
    breakAfter: breakAfter === undefined ? undefined : Number(breakAfter),
  };
}

const CREATED = 1_750_000_000;

function chatCompletion(plan: Plan, id: string): Record<string, unknown> {
  return {
    id,
    object: "chat.completion",
    created: CREATED,
    model: plan.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: plan.answer, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: {
      prompt_tokens: plan.prompt,
      completion_tokens: plan.completion,
      total_tokens: plan.prompt + plan.completion,
      prompt_tokens_details: { cached_tokens: plan.cached ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: plan.reasoning ?? 0, audio_tokens: 0 },
    },
    system_fingerprint: "fp_fake",
  };
}

/** The chat chunks of a stream: as OpenAI sends them, with `usage` only when `include_usage` was asked. */
function chatChunks(plan: Plan, id: string, includeUsage: boolean): Record<string, unknown>[] {
  const chunk = (choices: unknown[]): Record<string, unknown> => ({
    id,
    object: "chat.completion.chunk",
    created: CREATED,
    model: plan.model,
    system_fingerprint: "fp_fake",
    choices,
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks = [
    chunk([
      { index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null },
    ]),
    ...plan.words.map((word) => chunk([{ index: 0, delta: { content: word }, logprobs: null, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]),
  ];
  if (includeUsage) {
    chunks.push({
      ...chunk([]),
      usage: {
        prompt_tokens: plan.prompt,
        completion_tokens: plan.completion,
        total_tokens: plan.prompt + plan.completion,
        ...(plan.cached === undefined && plan.reasoning === undefined
          ? {}
          : {
              prompt_tokens_details: { cached_tokens: plan.cached ?? 0, audio_tokens: 0 },
              completion_tokens_details: { reasoning_tokens: plan.reasoning ?? 0, audio_tokens: 0 },
            }),
      },
    });
  }
  return chunks;
}

function response(plan: Plan, id: string, status: "in_progress" | "completed"): Record<string, unknown> {
  const done = status === "completed";
  return {
    id,
    object: "response",
    created_at: CREATED,
    status,
    model: plan.model,
    output: done
      ? [
          {
            type: "message",
            id: `msg_${id}`,
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text: plan.answer, annotations: [] }],
          },
        ]
      : [],
    usage: done
      ? {
          input_tokens: plan.prompt,
          input_tokens_details: { cached_tokens: plan.cached ?? 0 },
          output_tokens: plan.completion,
          output_tokens_details: { reasoning_tokens: plan.reasoning ?? 0 },
          total_tokens: plan.prompt + plan.completion,
        }
      : null,
  };
}

function responseEvents(plan: Plan, id: string): Record<string, unknown>[] {
  const item = { type: "message", id: `msg_${id}`, status: "in_progress", role: "assistant", content: [] };
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: response(plan, id, "in_progress") },
    { type: "response.output_item.added", output_index: 0, item },
    ...plan.words.map((delta) => ({
      type: "response.output_text.delta",
      item_id: `msg_${id}`,
      output_index: 0,
      content_index: 0,
      delta,
    })),
    { type: "response.output_text.done", item_id: `msg_${id}`, output_index: 0, content_index: 0, text: plan.answer },
    { type: "response.completed", response: response(plan, id, "completed") },
  ];
  return events.map((event, index) => ({ ...event, sequence_number: index }));
}

function sendJson(res: ServerResponse, status: number, body: unknown, id: string): void {
  res.writeHead(status, { "content-type": "application/json", "x-request-id": `req_${id}` });
  res.end(JSON.stringify(body));
}

function sendEvents(
  res: ServerResponse,
  events: readonly Record<string, unknown>[],
  id: string,
  plan: Plan,
  named: boolean,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "x-request-id": `req_${id}` });
  let sent = 0;
  for (const event of events) {
    if (plan.breakAfter !== undefined && sent >= plan.breakAfter) {
      // Let what was written reach the client, then cut the connection mid-stream.
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    res.write(`${named ? `event: ${String(event.type)}\n` : ""}data: ${JSON.stringify(event)}\n\n`);
    sent++;
  }
  if (!named) res.write("data: [DONE]\n\n");
  res.end();
}

let counter = 0;

async function answer(req: IncomingMessage, res: ServerResponse, requests: FakeRequest[]): Promise<void> {
  const text = await readBody(req);
  const request: FakeRequest = {
    path: req.url ?? "",
    headers: req.headers,
    body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
  };
  requests.push(request);
  const id = `fake${++counter}`;
  const status = header(request, "x-fake-status");
  if (status !== undefined) {
    const error = ERROR_BODIES[Number(status)] ?? ERROR_BODIES[500];
    sendJson(res, Number(status), { error: { ...error, param: null } }, id);
    return;
  }
  const plan = planOf(request);
  const stream = request.body.stream === true;
  if (req.method === "POST" && request.path === "/v1/chat/completions") {
    const streamOptions = request.body.stream_options as { include_usage?: unknown } | undefined;
    if (!stream) sendJson(res, 200, chatCompletion(plan, `chatcmpl-${id}`), id);
    else sendEvents(res, chatChunks(plan, `chatcmpl-${id}`, streamOptions?.include_usage === true), id, plan, false);
    return;
  }
  if (req.method === "POST" && request.path === "/v1/responses") {
    if (!stream) sendJson(res, 200, response(plan, `resp_${id}`, "completed"), id);
    else sendEvents(res, responseEvents(plan, `resp_${id}`), id, plan, true);
    return;
  }
  sendJson(res, 404, { error: { message: `No route ${request.path}`, type: "invalid_request_error" } }, id);
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    answer(req, res, requests).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: "server_error" } }, "x");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
