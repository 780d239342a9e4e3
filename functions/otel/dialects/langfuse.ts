/**
 * Langfuse's own SDKs (`@langfuse/tracing` with `@langfuse/otel` in TypeScript; the Python SDK v3 writes the same
 * attributes): `langfuse.observation.type` says what a span is (`agent`, `generation`, `embedding`, `tool`,
 * `event`, `span`, `chain`…); `langfuse.observation.model.name`, `…usage_details` and `…cost_details` (JSON
 * objects of numbers by usage type) a model call; `langfuse.observation.input` / `…output` (JSON text) the
 * messages, or a tool's arguments and result; `langfuse.observation.level` `ERROR` with `…status_message` a
 * failure. Of any span (the processor copies them onto every span of the trace): `user.id`, `session.id` (or
 * their older `langfuse.user.id`, `langfuse.session.id`), `langfuse.trace.name` and the trace's metadata,
 * tags, environment and release. Table: docs/otel.md.
 */
import { answerText } from "../../domain/genai-messages.js";
import {
  type Dialect,
  type InferenceUsage,
  isJsonObject,
  jsonAttribute,
  objectAttribute,
  prefixedObject,
  type SpanFacts,
  type SpanIdentity,
  type SpanRole,
  tokenCount,
  usdCost,
} from "../../domain/genai-span.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { type Attributes, firstString, type OtelSpan, stringAttribute } from "../../domain/otel-span.js";

const TYPE = "langfuse.observation.type";
const ROLES: Readonly<Record<string, { role: SpanRole; operation: string }>> = {
  generation: { role: "inference", operation: "chat" },
  embedding: { role: "inference", operation: "embeddings" },
  tool: { role: "tool", operation: "execute_tool" },
  agent: { role: "agent", operation: "invoke_agent" },
  event: { role: "event", operation: "event" },
};
/** Observations whose name, at the root of the trace (the application's own run), names the run: a stand-in for the agent. */
const RUN_TYPES = ["agent", "span", "chain"];
const TRACE_METADATA = "langfuse.trace.metadata";
const OBSERVATION_METADATA = "langfuse.observation.metadata";

function typeOf(span: OtelSpan): string {
  return (stringAttribute(span.attributes, TYPE) ?? "").toLowerCase();
}

/** Metadata as Langfuse writes it: one JSON value under the key, or one attribute per entry under `<key>.`. */
function metadataOf(attributes: Attributes, key: string): JsonValue | undefined {
  const whole = jsonAttribute(attributes, key);
  const entries = prefixedObject(attributes, `${key}.`, key)?.[key];
  if (whole === undefined) return entries;
  if (!isJsonObject(whole) || !isJsonObject(entries)) return whole;
  return copyOwn(copyOwn({}, whole), entries);
}

/** `target` with `source`'s own entries defined on it (a `__proto__` is only a key). */
function copyOwn(target: JsonObject, source: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(source)) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return target;
}

/** The trace-level facts a span carries, under their attribute names (root spans add their observation metadata). */
function runMetadata(span: OtelSpan): JsonObject | undefined {
  const attributes = span.attributes;
  const metadata: JsonObject = {};
  const entries: [string, JsonValue | undefined][] = [
    [TRACE_METADATA, metadataOf(attributes, TRACE_METADATA)],
    ["langfuse.trace.tags", jsonAttribute(attributes, "langfuse.trace.tags")],
    ["langfuse.environment", stringAttribute(attributes, "langfuse.environment")],
    ["langfuse.release", stringAttribute(attributes, "langfuse.release")],
    ["langfuse.version", stringAttribute(attributes, "langfuse.version")],
    [OBSERVATION_METADATA, span.parentSpanId === undefined ? metadataOf(attributes, OBSERVATION_METADATA) : undefined],
  ];
  for (const [key, value] of entries) if (value !== undefined) metadata[key] = value;
  return Object.keys(metadata).length === 0 ? undefined : metadata;
}

function identity(span: OtelSpan): SpanIdentity {
  const attributes = span.attributes;
  const type = typeOf(span);
  const ownName = span.name === "" ? undefined : span.name;
  const rootName = span.parentSpanId === undefined && RUN_TYPES.includes(type) ? ownName : undefined;
  return {
    agentName: (type === "agent" ? ownName : undefined) ?? stringAttribute(attributes, "langfuse.trace.name"),
    runName: rootName,
    userId: firstString(attributes, ["user.id", "langfuse.user.id"]),
    conversationId: firstString(attributes, ["session.id", "langfuse.session.id"]),
    metadata: runMetadata(span),
  };
}

/** A JSON object of `langfuse.observation.*_details`: its own entries that are finite numbers. */
function numbersOf(attributes: Attributes, key: string): [string, number][] | undefined {
  const details = objectAttribute(attributes, key);
  if (details === undefined) return undefined;
  return Object.entries(details).filter((entry): entry is [string, number] => Number.isFinite(entry[1]));
}

/** The sum of the counts whose usage type matches, each a token count (else the sum is none). */
function countOf(counts: readonly [string, number][], matches: (type: string) => boolean): number | undefined {
  const matching = counts.filter(([type]) => matches(type));
  if (matching.length === 0 || matching.some(([, count]) => tokenCount(count) === undefined)) return undefined;
  return tokenCount(matching.reduce((sum, [, count]) => sum + count, 0));
}

const isTotal = (type: string) => type === "total" || type === "total_tokens";
const isInput = (type: string) => !isTotal(type) && (type.includes("input") || type.startsWith("prompt"));
const isOutput = (type: string) => !isTotal(type) && (type.includes("output") || type.startsWith("completion"));

/**
 * `usage_details` in ats's convention. Langfuse's usage types are free names; its own rule (its UI's) counts every
 * type whose name contains `input` as input and `output` as output, its integrations splitting the cached and
 * reasoning parts off `input` and `output` (`input_cached_tokens`, `output_reasoning_tokens`): so the prompt
 * tokens are the sum of the input types, the completion tokens that of the output types (OpenAI's `prompt_tokens`
 * and `completion_tokens` too). `cost_details`: its `total`, else the sum of its parts (USD).
 */
function usageOf(attributes: Attributes): InferenceUsage {
  const counts = numbersOf(attributes, "langfuse.observation.usage_details") ?? [];
  const promptTokens = countOf(counts, isInput);
  const completionTokens = countOf(counts, isOutput);
  const total = countOf(counts, isTotal);
  return {
    promptTokens,
    completionTokens,
    totalTokens:
      total ??
      (promptTokens !== undefined || completionTokens !== undefined
        ? tokenCount((promptTokens ?? 0) + (completionTokens ?? 0))
        : undefined),
    cacheReadTokens: countOf(counts, (type) => isInput(type) && /cache_read|cached/.test(type)),
    cacheCreationTokens: countOf(counts, (type) => isInput(type) && /cache_creation|cache_write/.test(type)),
    reasoningTokens: countOf(counts, (type) => isOutput(type) && type.includes("reasoning")),
    cost: costOf(attributes),
  };
}

function costOf(attributes: Attributes): number | undefined {
  const parts = numbersOf(attributes, "langfuse.observation.cost_details");
  if (parts === undefined || parts.length === 0) return undefined;
  const total = parts.find(([type]) => type === "total");
  if (total !== undefined) return usdCost(total[1]);
  if (parts.some(([, cost]) => usdCost(cost) === undefined)) return undefined;
  return usdCost(parts.reduce((sum, [, cost]) => sum + cost, 0));
}

/** A model parameter (`temperature`, `max_tokens`…) given as a number or a numeric string. */
function parameter(parameters: JsonObject | undefined, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = parameters !== undefined && Object.hasOwn(parameters, key) ? parameters[key] : undefined;
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number === "number" && Number.isFinite(number)) return number;
  }
  return undefined;
}

/** An observation whose level is `ERROR` failed: its status message (else its name) says why. */
function failureOf(span: OtelSpan): string | undefined {
  if (stringAttribute(span.attributes, "langfuse.observation.level")?.toUpperCase() !== "ERROR") return undefined;
  return stringAttribute(span.attributes, "langfuse.observation.status_message") ?? `${span.name} failed`;
}

function read(span: OtelSpan): SpanFacts {
  const attributes = span.attributes;
  const type = typeOf(span);
  const { role, operation } = Object.hasOwn(ROLES, type)
    ? (ROLES[type] as { role: SpanRole; operation: string })
    : { role: "other" as const, operation: type === "" ? undefined : type };
  const base = { role, operation, failure: failureOf(span), ...identity(span) };
  const input = jsonAttribute(attributes, "langfuse.observation.input");
  const output = jsonAttribute(attributes, "langfuse.observation.output");
  const usage = usageOf(attributes);
  if (role === "tool") {
    return { ...base, toolName: span.name, toolArguments: input, toolResult: output, cost: usage.cost };
  }
  if (role === "event") return { ...base, toolArguments: input, toolResult: output };
  if (role !== "inference") return { ...base, usage };
  const parameters = objectAttribute(attributes, "langfuse.observation.model.parameters");
  return {
    ...base,
    model: stringAttribute(attributes, "langfuse.observation.model.name"),
    temperature: parameter(parameters, ["temperature"]),
    maxTokens: parameter(parameters, ["max_tokens", "maxTokens", "max_completion_tokens"]),
    topP: parameter(parameters, ["top_p", "topP"]),
    usage,
    inputMessages: input,
    outputMessages: output,
    answer: answerText(output),
  };
}

export const langfuse: Dialect = {
  name: "langfuse",
  recognises: (span) => stringAttribute(span.attributes, TYPE) !== undefined,
  read,
  identity,
};
