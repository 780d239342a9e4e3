/**
 * What one OpenAI call records: the request's description, the outcome read
 * from a response (or a stream's accumulation), and the `llm_decision` /
 * `error` events built from them. Never throws into the caller.
 */
import type { Run } from "../run.js";
import { type EventUsage, eventUsage } from "../usage.js";
import type { LlmUsage, WrapOpenAIOptions } from "./options.js";
import { estimateCost } from "./pricing.js";
import {
  chatMessagePart,
  chatPromptParts,
  isRecord,
  responsesAnswerParts,
  responsesPromptParts,
  type SummaryPart,
  summarize,
} from "./summary.js";

/** The OpenAI endpoints the wrapper records. */
export type OpenAIApi = "chat.completions" | "responses";

/** One call in flight. */
export interface CallState {
  readonly api: OpenAIApi;
  readonly run: Run;
  readonly options: WrapOpenAIOptions;
  readonly startedAt: number;
  readonly requestedModel: string | undefined;
  /** `request` of the event (without the model). */
  readonly request: Record<string, unknown>;
  /** The prompt for the summary; `undefined` when content is not captured. */
  readonly prompt: SummaryPart[] | undefined;
  /** Whether the wrapper added `stream_options.include_usage` (its effects are then hidden). */
  readonly injectedStreamUsage: boolean;
  /** The body to send: the caller's, or a copy with `stream_options` added. */
  readonly body: unknown;
}

/** What a response (or a stream) said. */
export interface CallOutcome {
  model?: string | undefined;
  /** The usage for a cost function (missing counts as 0). */
  usage?: LlmUsage | undefined;
  /** The usage as the event sends it: exactly the counts the response gave. */
  eventUsage?: EventUsage | undefined;
  answer: SummaryPart[];
  response: Record<string, unknown>;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Sets `key` when `value` is not `undefined`. */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

function toolNames(tools: unknown): string[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.filter(isRecord).map((tool) => {
    const fn = isRecord(tool.function) ? tool.function : isRecord(tool.custom) ? tool.custom : tool;
    return text(fn.name) ?? text(tool.type) ?? "tool";
  });
}

/** Reads the request: its model, the event's `request` fields, the prompt (when captured), the body to send. */
export function startCall(api: OpenAIApi, body: unknown, run: Run, options: WrapOpenAIOptions): CallState {
  const params = isRecord(body) ? body : {};
  const capture = options.captureContent !== false;
  const request: Record<string, unknown> = { api };
  let prompt: SummaryPart[] | undefined;
  let sent = body;
  let injected = false;
  if (api === "chat.completions") {
    put(request, "messageCount", Array.isArray(params.messages) ? params.messages.length : undefined);
    put(request, "maxTokens", count(params.max_completion_tokens) ?? count(params.max_tokens));
    if (capture) prompt = chatPromptParts(params.messages);
    const streamOptions = isRecord(params.stream_options) ? params.stream_options : undefined;
    if (params.stream === true && options.includeStreamUsage !== false && streamOptions?.include_usage === undefined) {
      sent = { ...params, stream_options: { ...streamOptions, include_usage: true } };
      injected = true;
    }
  } else {
    const input = params.input;
    put(request, "messageCount", Array.isArray(input) ? input.length : input === undefined ? 0 : 1);
    put(request, "maxTokens", count(params.max_output_tokens));
    if (capture) prompt = responsesPromptParts(params.instructions, input);
  }
  put(request, "temperature", typeof params.temperature === "number" ? params.temperature : undefined);
  put(request, "tools", toolNames(params.tools));
  if (params.stream === true) request.stream = true;
  return {
    api,
    run,
    options,
    startedAt: Date.now(),
    requestedModel: text(params.model),
    request,
    prompt,
    injectedStreamUsage: injected,
    body: sent,
  };
}

/** Token usage in either API's shape (`prompt_tokens`… or `input_tokens`…); `undefined` when there is none. */
export function usageOf(value: unknown): LlmUsage | undefined {
  if (!isRecord(value)) return undefined;
  const prompt = count(value.prompt_tokens) ?? count(value.input_tokens);
  const completion = count(value.completion_tokens) ?? count(value.output_tokens);
  const total = count(value.total_tokens);
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  const promptDetails = value.prompt_tokens_details ?? value.input_tokens_details;
  const completionDetails = value.completion_tokens_details ?? value.output_tokens_details;
  const cached = isRecord(promptDetails) ? count(promptDetails.cached_tokens) : undefined;
  const reasoning = isRecord(completionDetails) ? count(completionDetails.reasoning_tokens) : undefined;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    totalTokens: total ?? (prompt ?? 0) + (completion ?? 0),
    ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

/**
 * The counts OpenAI gave, in the event's names: `prompt_tokens`/`input_tokens`
 * → `promptTokens`, `completion_tokens`/`output_tokens` → `completionTokens`,
 * `total_tokens` → `totalTokens`, `*_tokens_details.cached_tokens` →
 * `cacheReadTokens`, `*_tokens_details.reasoning_tokens` → `reasoningTokens`.
 * Nothing is computed; `undefined` when there is no count.
 */
export function eventUsageOf(value: unknown): EventUsage | undefined {
  if (!isRecord(value)) return undefined;
  const promptDetails = value.prompt_tokens_details ?? value.input_tokens_details;
  const completionDetails = value.completion_tokens_details ?? value.output_tokens_details;
  return eventUsage({
    promptTokens: value.prompt_tokens ?? value.input_tokens,
    completionTokens: value.completion_tokens ?? value.output_tokens,
    totalTokens: value.total_tokens,
    cacheReadTokens: isRecord(promptDetails) ? promptDetails.cached_tokens : undefined,
    reasoningTokens: isRecord(completionDetails) ? completionDetails.reasoning_tokens : undefined,
  });
}

/** A chat completion's outcome (the first choice is summarised). */
export function chatOutcome(completion: unknown): CallOutcome {
  const data = isRecord(completion) ? completion : {};
  const choices = Array.isArray(data.choices) ? data.choices : [];
  const first: unknown = choices[0];
  const response: Record<string, unknown> = {};
  put(response, "id", text(data.id));
  if (isRecord(first)) put(response, "finishReason", text(first.finish_reason));
  if (choices.length > 1) response.choices = choices.length;
  const part = isRecord(first) ? chatMessagePart(first.message) : undefined;
  return {
    model: text(data.model),
    usage: usageOf(data.usage),
    eventUsage: eventUsageOf(data.usage),
    answer: part === undefined || part.text === "" ? [] : [{ role: "assistant", text: part.text }],
    response,
  };
}

/** A Responses API response's outcome. */
export function responsesOutcome(result: unknown): CallOutcome {
  const data = isRecord(result) ? result : {};
  const response: Record<string, unknown> = {};
  put(response, "id", text(data.id));
  const incomplete = isRecord(data.incomplete_details) ? text(data.incomplete_details.reason) : undefined;
  put(response, "finishReason", incomplete ?? text(data.status));
  let answer = responsesAnswerParts(data.output);
  const outputText = text(data.output_text);
  if (answer.length === 0 && outputText !== undefined) answer = [{ role: "assistant", text: outputText }];
  return {
    model: text(data.model),
    usage: usageOf(data.usage),
    eventUsage: eventUsageOf(data.usage),
    answer,
    response,
  };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === "string" ? error : String(error);
}

/**
 * Records the call's `llm_decision` event (and adds its tokens to the run):
 * the response's model and usage as the event's `model` and `usage`, and
 * `estimatedCost` only from the caller's `cost` or `prices` (else the service
 * prices the call).
 */
export function recordOutcome(call: CallState, outcome: CallOutcome, extra: Record<string, unknown> = {}): void {
  try {
    const model = outcome.model ?? call.requestedModel ?? "unknown";
    const request: Record<string, unknown> = { ...call.request };
    if (call.requestedModel !== undefined && call.requestedModel !== model)
      request.requestedModel = call.requestedModel;
    const response: Record<string, unknown> = { ...outcome.response, ...extra };
    put(response, "cachedTokens", outcome.usage?.cachedPromptTokens);
    put(response, "reasoningTokens", outcome.usage?.reasoningTokens);
    const usage = outcome.usage;
    call.run.llmCall({
      model,
      ...(call.prompt === undefined ? {} : { reasoning: summarize(call.prompt, outcome.answer) }),
      ...(outcome.eventUsage === undefined ? {} : { usage: outcome.eventUsage }),
      ...optionalCost(estimateCost(call.options, [outcome.model, call.requestedModel], usage)),
      // The event spans the call: from its start, for as long as it (and its stream) took.
      occurredAt: new Date(call.startedAt),
      durationMs: Math.max(0, Date.now() - call.startedAt),
      request,
      response,
    });
  } catch {
    // Recording never fails the agent's call.
  }
}

function optionalCost(cost: number | undefined): { estimatedCost?: number } {
  return cost === undefined ? {} : { estimatedCost: cost };
}

/** Records an `error` event for a failed call: the error's name and message, the model and the HTTP status. */
export function recordFailure(call: CallState, error: unknown, model?: string): void {
  try {
    const details: Record<string, unknown> = { api: call.api, model: model ?? call.requestedModel ?? "unknown" };
    if (isRecord(error) || error instanceof Error) {
      const fields = error as unknown as Record<string, unknown>;
      put(details, "status", count(fields.status));
      put(details, "code", text(fields.code));
      put(details, "type", text(fields.type));
      put(details, "requestId", text(fields.requestID));
    }
    details.durationMs = Math.max(0, Date.now() - call.startedAt);
    call.run.error({ message: describeError(error), details });
  } catch {
    // Recording never fails the agent's call.
  }
}
