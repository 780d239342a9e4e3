/**
 * The OpenTelemetry GenAI semantic conventions (current, and the ≤ v1.36 names): `gen_ai.operation.name`
 * (or the span name's first word) says what a span is; `gen_ai.*` attributes and the message events
 * (genai-messages.ts) say the rest. The dialect of last resort: it reads any span, and a span without a
 * GenAI operation is `other`. Also what any span says of its run: `gen_ai.agent.name`, `user.id`,
 * `enduser.id`, `gen_ai.conversation.id`, `session.id`. Table: docs/otel.md.
 */
import { answerText, attributeJson, spanMessages } from "../../domain/genai-messages.js";
import {
  type Dialect,
  type SpanFacts,
  type SpanIdentity,
  type SpanRole,
  type UsageKeys,
  usageFrom,
  usdCost,
} from "../../domain/genai-span.js";
import { firstString, numberAttribute, type OtelSpan, stringAttribute } from "../../domain/otel-span.js";

export const INFERENCE_OPERATIONS = ["chat", "text_completion", "generate_content", "embeddings"] as const;
export const AGENT_OPERATIONS = ["invoke_agent", "create_agent"] as const;
export const TOOL_OPERATION = "execute_tool";

const KNOWN_OPERATIONS: readonly string[] = [...INFERENCE_OPERATIONS, ...AGENT_OPERATIONS, TOOL_OPERATION];

/** The span's GenAI operation: `gen_ai.operation.name`, else its name's first word when that is an operation. */
export function operationOf(span: OtelSpan): string | undefined {
  const operation = stringAttribute(span.attributes, "gen_ai.operation.name");
  if (operation !== undefined) return operation;
  const firstWord = span.name.split(" ", 1)[0] ?? "";
  return KNOWN_OPERATIONS.includes(firstWord) ? firstWord : undefined;
}

export function roleOfOperation(operation: string | undefined): SpanRole {
  if (operation === undefined) return "other";
  if (operation === TOOL_OPERATION) return "tool";
  if ((INFERENCE_OPERATIONS as readonly string[]).includes(operation)) return "inference";
  if ((AGENT_OPERATIONS as readonly string[]).includes(operation)) return "agent";
  return "other";
}

/**
 * Usage under the current and the ≤ v1.36 names (and the cache and reasoning counts some instrumentations add,
 * OpenLLMetry's `gen_ai.usage.reasoning_tokens` among them). The conventions say `gen_ai.usage.input_tokens`
 * includes the cached tokens and `output_tokens` the reasoning ones: ats's own convention, read as it is.
 */
export const SEMCONV_USAGE = {
  prompt: ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"],
  completion: ["gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"],
  total: ["gen_ai.usage.total_tokens"],
  cacheRead: ["gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens"],
  cacheCreation: ["gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_creation_input_tokens"],
  reasoning: ["gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens"],
  cost: ["gen_ai.usage.cost"],
} as const satisfies UsageKeys;

function identity(span: OtelSpan): SpanIdentity {
  const attributes = span.attributes;
  return {
    agentName: stringAttribute(attributes, "gen_ai.agent.name"),
    agentId: stringAttribute(attributes, "gen_ai.agent.id"),
    userId: firstString(attributes, ["user.id", "enduser.id"]),
    conversationId: firstString(attributes, ["gen_ai.conversation.id", "session.id"]),
  };
}

/** The model-call facts of a span under these conventions (other dialects fall back on them). */
export function semconvInference(span: OtelSpan): Omit<SpanFacts, "role"> {
  const attributes = span.attributes;
  const messages = spanMessages(span);
  return {
    provider: firstString(attributes, ["gen_ai.provider.name", "gen_ai.system"]),
    model: firstString(attributes, ["gen_ai.request.model", "gen_ai.response.model"]),
    responseModel: stringAttribute(attributes, "gen_ai.response.model"),
    responseId: stringAttribute(attributes, "gen_ai.response.id"),
    finishReasons: attributeJson(attributes.get("gen_ai.response.finish_reasons")),
    temperature: numberAttribute(attributes, "gen_ai.request.temperature"),
    maxTokens: numberAttribute(attributes, "gen_ai.request.max_tokens"),
    topP: numberAttribute(attributes, "gen_ai.request.top_p"),
    usage: usageFrom(attributes, SEMCONV_USAGE),
    inputMessages: messages.input,
    outputMessages: messages.output,
    systemInstructions: messages.systemInstructions,
    answer: answerText(messages.output),
  };
}

function read(span: OtelSpan): SpanFacts {
  const attributes = span.attributes;
  const operation = operationOf(span);
  const role = roleOfOperation(operation);
  const base = { role, operation, ...identity(span) };
  if (role === "inference") return { ...base, ...semconvInference(span) };
  if (role === "tool") {
    const fromSpanName = span.name.startsWith(`${TOOL_OPERATION} `)
      ? span.name.slice(TOOL_OPERATION.length + 1)
      : undefined;
    return {
      ...base,
      toolName: stringAttribute(attributes, "gen_ai.tool.name") ?? fromSpanName,
      toolArguments: attributeJson(attributes.get("gen_ai.tool.call.arguments")),
      toolResult: attributeJson(attributes.get("gen_ai.tool.call.result")),
      cost: usdCost(numberAttribute(attributes, "gen_ai.usage.cost")),
    };
  }
  // An agent's (or any) span: its own usage is the run's total at most, never a model call's.
  return { ...base, usage: usageFrom(attributes, SEMCONV_USAGE) };
}

export const genAiSemconv: Dialect = {
  name: "genai-semconv",
  recognises: () => true,
  read,
  identity,
};
