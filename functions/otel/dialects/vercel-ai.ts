/**
 * The Vercel AI SDK's own span shapes (`ai` ≤ 6 with `experimental_telemetry`, and `@ai-sdk/otel`'s
 * `LegacyOpenTelemetry`): `ai.operationId` (else the span name) names the call — `ai.generateText` (the run),
 * `ai.generateText.doGenerate` (one model call), `ai.toolCall`; `ai.usage.*`, `ai.prompt.messages`,
 * `ai.response.*`, `ai.toolCall.*` carry the rest. Of any span (the current `@ai-sdk/otel` integration's
 * GenAI spans too): the user and session in `ai.telemetry.metadata.*` or `ai.settings.context.*`, the agent in
 * `ai.telemetry.functionId`. Table: docs/otel.md.
 */
import { answerText } from "../../domain/genai-messages.js";
import {
  type Dialect,
  jsonAttribute,
  prefixedObject,
  type SpanFacts,
  type SpanIdentity,
  type SpanRole,
  type UsageKeys,
  usageFrom,
} from "../../domain/genai-span.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { type Attributes, firstString, type OtelSpan, stringAttribute } from "../../domain/otel-span.js";
import { SEMCONV_USAGE } from "./genai-semconv.js";

/** Calls that are a run of the model with tools (an agent's loop). */
const RUNS = ["ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"];
/** One model call (`ai.<call>.doGenerate`, `.doStream`, `.doEmbed`), and the operation it is. */
function modelCallOf(operationId: string): string | undefined {
  if (/\.do(Generate|Stream)$/.test(operationId)) return "chat";
  return operationId.endsWith(".doEmbed") ? "embeddings" : undefined;
}
const TOOL_CALL = "ai.toolCall";

const METADATA_PREFIXES = ["ai.telemetry.metadata.", "ai.settings.context."];
const USER_KEYS = ["userId", "user_id", "user"];
const SESSION_KEYS = ["sessionId", "session_id", "conversationId", "conversation_id", "threadId", "thread_id"];

function operationIdOf(span: OtelSpan): string {
  return stringAttribute(span.attributes, "ai.operationId") ?? span.name;
}

/** `ai.telemetry.metadata.<key>` / `ai.settings.context.<key>` of the first key that has a string. */
function metadataString(attributes: Attributes, keys: readonly string[]): string | undefined {
  return firstString(
    attributes,
    METADATA_PREFIXES.flatMap((prefix) => keys.map((key) => `${prefix}${key}`)),
  );
}

function identity(span: OtelSpan): SpanIdentity {
  const attributes = span.attributes;
  return {
    agentName: stringAttribute(attributes, "ai.telemetry.functionId"),
    userId: metadataString(attributes, USER_KEYS),
    conversationId: metadataString(attributes, SESSION_KEYS),
    metadata: prefixedObject(attributes, "ai.telemetry.metadata.", "ai.telemetry.metadata"),
  };
}

/**
 * The AI SDK's usage (`ai` 6 and later: `inputTokens` is every input token, cached ones included, and
 * `outputTokens` includes the reasoning ones — ats's convention, read as it is).
 */
const USAGE = {
  prompt: ["ai.usage.inputTokens", "ai.usage.promptTokens", ...SEMCONV_USAGE.prompt],
  completion: ["ai.usage.outputTokens", "ai.usage.completionTokens", ...SEMCONV_USAGE.completion],
  total: ["ai.usage.totalTokens", ...SEMCONV_USAGE.total],
  cacheRead: ["ai.usage.inputTokenDetails.cacheReadTokens", "ai.usage.cachedInputTokens", ...SEMCONV_USAGE.cacheRead],
  cacheCreation: ["ai.usage.inputTokenDetails.cacheWriteTokens", ...SEMCONV_USAGE.cacheCreation],
  reasoning: ["ai.usage.reasoningTokens", "ai.usage.outputTokenDetails.reasoningTokens", ...SEMCONV_USAGE.reasoning],
} as const satisfies UsageKeys;

/** The answer as one assistant message: its text and its tool calls. */
function outputMessages(attributes: Attributes): JsonValue | undefined {
  const text = stringAttribute(attributes, "ai.response.text");
  const toolCalls = jsonAttribute(attributes, "ai.response.toolCalls");
  const object = stringAttribute(attributes, "ai.response.object");
  if (text === undefined && toolCalls === undefined && object === undefined) return undefined;
  const message: JsonObject = { role: "assistant" };
  if (text !== undefined || object !== undefined) message.content = text ?? object ?? "";
  if (toolCalls !== undefined) message.toolCalls = toolCalls;
  return [message];
}

function read(span: OtelSpan): SpanFacts {
  const attributes = span.attributes;
  const operationId = operationIdOf(span);
  const modelCall = modelCallOf(operationId);
  const role: SpanRole =
    modelCall !== undefined
      ? "inference"
      : operationId === TOOL_CALL
        ? "tool"
        : RUNS.includes(operationId)
          ? "agent"
          : "other";
  const base = { role, operation: modelCall ?? (role === "tool" ? "execute_tool" : operationId), ...identity(span) };
  if (role === "tool") {
    return {
      ...base,
      toolName: stringAttribute(attributes, "ai.toolCall.name"),
      toolArguments: jsonAttribute(attributes, "ai.toolCall.args") ?? jsonAttribute(attributes, "ai.toolCall.input"),
      toolResult: jsonAttribute(attributes, "ai.toolCall.result") ?? jsonAttribute(attributes, "ai.toolCall.output"),
    };
  }
  const usage = usageFrom(attributes, USAGE);
  if (role !== "inference") return { ...base, usage };
  const output = outputMessages(attributes);
  return {
    ...base,
    provider: firstString(attributes, ["ai.model.provider", "gen_ai.system"]),
    model: firstString(attributes, ["ai.model.id", "gen_ai.request.model"]),
    responseModel: firstString(attributes, ["ai.response.model", "gen_ai.response.model"]),
    responseId: firstString(attributes, ["ai.response.id", "gen_ai.response.id"]),
    finishReasons:
      jsonAttribute(attributes, "gen_ai.response.finish_reasons") ??
      jsonAttribute(attributes, "ai.response.finishReason"),
    usage,
    inputMessages: jsonAttribute(attributes, "ai.prompt.messages") ?? jsonAttribute(attributes, "ai.prompt"),
    outputMessages: output,
    answer: answerText(output),
  };
}

export const vercelAi: Dialect = {
  name: "vercel-ai",
  recognises: (span) => operationIdOf(span).startsWith("ai."),
  read,
  identity,
};
