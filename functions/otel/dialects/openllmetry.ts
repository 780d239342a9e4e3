/**
 * OpenLLMetry (Traceloop's SDKs and instrumentations, Node.js and Python): `traceloop.span.kind` says what a
 * span of the app is (`workflow`, `task`, `agent`, `tool`), with `traceloop.entity.name`, `…input`,
 * `…output`; model calls carry the GenAI conventions, in older releases with the messages flattened as
 * `gen_ai.prompt.<n>.*` / `gen_ai.completion.<n>.*` and `llm.request.type`. Of any span: the run's user and
 * session in `traceloop.association.properties.*`. Table: docs/otel.md.
 */
import { answerText, attributeJson } from "../../domain/genai-messages.js";
import {
  type Dialect,
  isJsonObject,
  jsonAttribute,
  prefixedObject,
  type SpanFacts,
  type SpanIdentity,
  unflattened,
  usageFrom,
} from "../../domain/genai-span.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { type Attributes, firstString, type OtelSpan, stringAttribute } from "../../domain/otel-span.js";
import { SEMCONV_USAGE, semconvInference } from "./genai-semconv.js";

const KIND = "traceloop.span.kind";
const ASSOCIATION = "traceloop.association.properties.";
const USER_KEYS = ["userId", "user_id"];
const SESSION_KEYS = [
  "sessionId",
  "session_id",
  "conversationId",
  "conversation_id",
  "chatId",
  "chat_id",
  "threadId",
  "thread_id",
];
const REQUEST_TYPES: Readonly<Record<string, string>> = {
  chat: "chat",
  completion: "text_completion",
  embedding: "embeddings",
};

function association(attributes: Attributes, keys: readonly string[]): string | undefined {
  return firstString(
    attributes,
    keys.map((key) => `${ASSOCIATION}${key}`),
  );
}

function kindOf(span: OtelSpan): string | undefined {
  return stringAttribute(span.attributes, KIND);
}

function identity(span: OtelSpan): SpanIdentity {
  const attributes = span.attributes;
  const kind = kindOf(span);
  const entity = stringAttribute(attributes, "traceloop.entity.name");
  // An agent span names its agent; the root workflow names the run (a stand-in for the agent).
  const runName =
    kind === "workflow" && span.parentSpanId === undefined
      ? (entity ?? stringAttribute(attributes, "traceloop.workflow.name"))
      : undefined;
  return {
    agentName: kind === "agent" ? entity : undefined,
    runName,
    userId: association(attributes, USER_KEYS),
    conversationId: association(attributes, SESSION_KEYS),
    metadata: prefixedObject(attributes, ASSOCIATION, "traceloop.association.properties"),
  };
}

/**
 * Whether the span's `gen_ai.usage.input_tokens` is Anthropic's `input_tokens` as the API gave it (cache reads and
 * writes left out): what the Node.js Anthropic instrumentation (`@traceloop/instrumentation-anthropic`) sets,
 * while the Python one sets `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`.
 */
function anthropicInputWithoutCache(span: OtelSpan): boolean {
  const provider = firstString(span.attributes, ["gen_ai.provider.name", "gen_ai.system"])?.toLowerCase();
  return provider === "anthropic" && stringAttribute(span.resource, "telemetry.sdk.language") !== "python";
}

/** A decorated function's input: `{args: [], kwargs: {...}}` reads as its keyword arguments. */
function entityInput(attributes: Attributes): JsonValue | undefined {
  const input = jsonAttribute(attributes, "traceloop.entity.input");
  if (!isJsonObject(input) || !isJsonObject(input.kwargs)) return input;
  const args = input.args;
  return Array.isArray(args) && args.length > 0 ? input : input.kwargs;
}

/** Whether an object's own keys are all among `keys` and it has `required`. */
function shapedAs(value: JsonValue | undefined, required: string, keys: readonly string[]): value is JsonObject {
  return isJsonObject(value) && Object.hasOwn(value, required) && Object.keys(value).every((key) => keys.includes(key));
}

/**
 * An MCP tool call's input as the MCP instrumentation records it (`{tool_name, arguments}`, the request's
 * params): the arguments the tool received. Anything else as it is.
 */
function mcpArguments(input: JsonValue | undefined, toolName: string | undefined): JsonValue | undefined {
  if (!shapedAs(input, "tool_name", ["tool_name", "arguments"]) || input.tool_name !== toolName) return input;
  return Object.hasOwn(input, "arguments") ? input.arguments : {};
}

/**
 * An MCP tool call's output as the MCP instrumentation records it (`{result, is_error}`: the text of the
 * result's first content item): what the tool returned — its text, read as JSON when it holds JSON. A failed
 * call's (`is_error` true) as it is.
 */
function mcpResult(output: JsonValue | undefined): JsonValue | undefined {
  if (!shapedAs(output, "result", ["result", "is_error"]) || output.is_error === true) return output;
  const result = output.result;
  return typeof result === "string" ? (attributeJson(result) ?? result) : result;
}

function read(span: OtelSpan): SpanFacts {
  const attributes = span.attributes;
  const kind = kindOf(span);
  const base = identity(span);
  if (kind === "tool") {
    const toolName = stringAttribute(attributes, "traceloop.entity.name") ?? span.name.replace(/\.tool$/, "");
    return {
      ...base,
      role: "tool",
      operation: "execute_tool",
      toolName,
      toolArguments: mcpArguments(entityInput(attributes), toolName),
      toolResult: mcpResult(jsonAttribute(attributes, "traceloop.entity.output")),
    };
  }
  const usage = usageFrom(
    attributes,
    { ...SEMCONV_USAGE, total: ["llm.usage.total_tokens", ...SEMCONV_USAGE.total] },
    { inputExcludesCache: anthropicInputWithoutCache(span) },
  );
  if (kind !== undefined) {
    return {
      ...base,
      role: kind === "agent" ? "agent" : "other",
      operation: kind === "agent" ? "invoke_agent" : kind,
      usage,
    };
  }
  // A model call of the instrumentations.
  const requestType = stringAttribute(attributes, "llm.request.type") ?? "chat";
  const semconv = semconvInference(span);
  const input = unflattened(attributes, "gen_ai.prompt.");
  const output = unflattened(attributes, "gen_ai.completion.");
  return {
    ...semconv,
    ...base,
    role: "inference",
    operation: Object.hasOwn(REQUEST_TYPES, requestType) ? REQUEST_TYPES[requestType] : requestType,
    usage,
    inputMessages: input ?? semconv.inputMessages,
    outputMessages: output ?? semconv.outputMessages,
    answer: output === undefined ? semconv.answer : answerText(output),
  };
}

export const openLlmetry: Dialect = {
  name: "openllmetry",
  recognises: (span) =>
    kindOf(span) !== undefined ||
    stringAttribute(span.attributes, "llm.request.type") !== undefined ||
    [...span.attributes.keys()].some((key) => key.startsWith("gen_ai.prompt.") || key.startsWith("gen_ai.completion.")),
  read,
  identity,
};
