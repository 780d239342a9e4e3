/**
 * A span as the GenAI planner reads it, whatever instrumentation emitted it: each dialect
 * (functions/otel/dialects/) recognises its own spans and reads its attribute names into this one
 * normalised form, so the planner (genai-trace-plan.ts) knows a single vocabulary. Pure types and the
 * readers the dialects share; no I/O.
 */
import { attributeJson, isJsonObject } from "./genai-messages.js";

export { isJsonObject };

import type { JsonObject, JsonValue } from "./json.js";
import { LIMITS } from "./limits.js";
import { type Attributes, numberAttribute, type OtelSpan } from "./otel-span.js";

/**
 * What a span is to the session: the run of an agent, a model call, a tool call, a point of the run the application
 * marked (`event`: Langfuse's event observations), one turn of a framework's agent loop around the model call it
 * makes (`step`: Mastra's `model_step`, which records the turn's messages while the call under it has the usage), or
 * anything else.
 */
export type SpanRole = "agent" | "inference" | "tool" | "event" | "step" | "other";

/**
 * Tokens and cost of one model call, in ats's convention (functions/pricing/usage.ts): `promptTokens` counts every
 * input token, the cached ones included; `completionTokens` every output token, the reasoning ones included. A
 * dialect whose library reports Anthropic-style input tokens (cache reads and writes left out) adds them up.
 */
export interface InferenceUsage {
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  /** Input tokens read from the provider's prompt cache (part of `promptTokens`). */
  readonly cacheReadTokens?: number | undefined;
  /** Input tokens written to the provider's prompt cache (part of `promptTokens`). */
  readonly cacheCreationTokens?: number | undefined;
  /** Output tokens spent on reasoning (part of `completionTokens`). */
  readonly reasoningTokens?: number | undefined;
  readonly cost?: number | undefined;
}

/** Who and what a span names, whatever it is: read from every dialect the span carries. */
export interface SpanIdentity {
  /** The agent the span names of its own: an attribute saying so, or the name of a span that is an agent's run. */
  readonly agentName?: string | undefined;
  /**
   * The name of the run a root span stands for (a workflow, chain, trace — or an agent span without an agent
   * attribute) when that name is all it says of the agent: a stand-in, weaker than any span naming the agent
   * (genai-trace-plan.ts AGENT_CLAIM.rootName). Only a root span has one.
   */
  readonly runName?: string | undefined;
  readonly agentId?: string | undefined;
  readonly userId?: string | undefined;
  readonly conversationId?: string | undefined;
  /** Run-level metadata of the dialect (association properties, telemetry metadata…), under the dialect's key. */
  readonly metadata?: JsonObject | undefined;
}

/** What the dialect that speaks a span reads from it. */
export interface SpanFacts extends SpanIdentity {
  readonly role: SpanRole;
  /** The GenAI operation it performs (`chat`, `embeddings`, `execute_tool`, `invoke_agent`…), if known. */
  readonly operation?: string | undefined;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly responseModel?: string | undefined;
  readonly responseId?: string | undefined;
  readonly finishReasons?: JsonValue | undefined;
  readonly temperature?: number | undefined;
  readonly maxTokens?: number | undefined;
  readonly topP?: number | undefined;
  /** A model call's tokens and cost (counted only for `inference` spans). */
  readonly usage?: InferenceUsage | undefined;
  readonly inputMessages?: JsonValue | undefined;
  readonly outputMessages?: JsonValue | undefined;
  readonly systemInstructions?: JsonValue | undefined;
  /** The answer's text, when the dialect has it apart from the output messages. */
  readonly answer?: string | undefined;
  readonly toolName?: string | undefined;
  /** A tool's arguments (a marked event's input). */
  readonly toolArguments?: JsonValue | undefined;
  /** A tool's result (a marked event's output). */
  readonly toolResult?: JsonValue | undefined;
  /** The span's own cost (a tool's), when it is not a model call's usage. */
  readonly cost?: number | undefined;
  /** Why the span failed, when its dialect says it did apart from its status (Langfuse's level `ERROR`). */
  readonly failure?: string | undefined;
}

/** A span and what it means, normalised. */
export interface GenAiSpan extends SpanFacts {
  readonly span: OtelSpan;
  /** The dialect that read the span (the most specific one it carries). */
  readonly dialect: string;
}

/**
 * A dialect: its name, which spans it speaks (`recognises`), how it reads them (`read`), and what it says of
 * any span's run (`identity`: a span of another dialect may still carry its user or session attributes).
 */
export interface Dialect {
  readonly name: string;
  recognises(span: OtelSpan): boolean;
  read(span: OtelSpan): SpanFacts;
  identity(span: OtelSpan): SpanIdentity;
}

/** A token count within the session schema's bounds (0 to LIMITS.maxTokens), else none: 2^64 is not a count. */
export function tokenCount(value: number | undefined): number | undefined {
  return value === undefined || value < 0 || value > LIMITS.maxTokens ? undefined : Math.round(value);
}

/** A cost in USD as the event and session schemas take it (0, or between DynamoDB-safe magnitudes), else none. */
export function usdCost(value: number | undefined): number | undefined {
  if (value === undefined || !(value === 0 || (value >= LIMITS.smallestNonZero && value <= LIMITS.maxCostUsd))) {
    return undefined;
  }
  return value;
}

/** The first of `keys` with a numeric value. */
export function firstNumber(attributes: Attributes, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = numberAttribute(attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The attribute names a dialect reads usage from, each list in order of preference. */
export interface UsageKeys {
  readonly prompt: readonly string[];
  readonly completion: readonly string[];
  readonly total: readonly string[];
  readonly cacheRead?: readonly string[];
  readonly cacheCreation?: readonly string[];
  readonly reasoning?: readonly string[];
  readonly cost?: readonly string[];
}

/**
 * Usage from the first present attribute of each list; `totalTokens` defaults to prompt + completion.
 * `inputExcludesCache`: the library's input count leaves the cache reads and writes out (Anthropic's
 * `input_tokens` passed on as it is), so they are added to `promptTokens` — and to a total that left them out.
 * Whatever the library, a cache part larger than the input count it belongs to says the same (a part is never
 * larger than its whole), and is added up likewise.
 */
export function usageFrom(
  attributes: Attributes,
  keys: UsageKeys,
  options: { readonly inputExcludesCache?: boolean } = {},
): InferenceUsage {
  const reportedPrompt = tokenCount(firstNumber(attributes, keys.prompt));
  const completionTokens = tokenCount(firstNumber(attributes, keys.completion));
  const cacheReadTokens = tokenCount(firstNumber(attributes, keys.cacheRead ?? []));
  const cacheCreationTokens = tokenCount(firstNumber(attributes, keys.cacheCreation ?? []));
  const cached = (cacheReadTokens ?? 0) + (cacheCreationTokens ?? 0);
  const addCache =
    reportedPrompt !== undefined && cached > 0 && (options.inputExcludesCache === true || cached > reportedPrompt);
  const promptTokens = addCache ? tokenCount(reportedPrompt + cached) : reportedPrompt;
  const reportedTotal = tokenCount(firstNumber(attributes, keys.total));
  const totalTokens =
    (addCache && reportedTotal !== undefined && reportedTotal === reportedPrompt + (completionTokens ?? 0)
      ? tokenCount(reportedTotal + cached)
      : reportedTotal) ??
    (promptTokens !== undefined || completionTokens !== undefined
      ? (promptTokens ?? 0) + (completionTokens ?? 0)
      : undefined);
  return {
    promptTokens,
    completionTokens,
    totalTokens,
    cacheReadTokens,
    cacheCreationTokens,
    reasoningTokens: tokenCount(firstNumber(attributes, keys.reasoning ?? [])),
    cost: usdCost(firstNumber(attributes, keys.cost ?? [])),
  };
}

/** Whether a usage carries any count or cost. */
export function hasUsage(usage: InferenceUsage | undefined): boolean {
  return usage !== undefined && Object.values(usage).some((value) => value !== undefined);
}

/** An attribute read as JSON (text holding JSON parsed), or undefined. */
export function jsonAttribute(attributes: Attributes, key: string): JsonValue | undefined {
  return attributeJson(attributes.get(key));
}

/** A JSON object attribute (text or key-value list), or undefined. */
export function objectAttribute(attributes: Attributes, key: string): JsonObject | undefined {
  const value = jsonAttribute(attributes, key);
  return isJsonObject(value) ? value : undefined;
}

/** A string attribute of a JSON object's own key (never an inherited one), or undefined. */
export function ownString(object: JsonObject | undefined, keys: readonly string[]): string | undefined {
  if (object === undefined) return undefined;
  for (const key of keys) {
    const value = Object.hasOwn(object, key) ? object[key] : undefined;
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
}

/** Most entries read from a flattened list (`prefix.N.…`), and deepest path below it. */
export const FLATTENED_ENTRIES = 1000;
const FLATTENED_DEPTH = 8;

type Tree = Map<string, Tree | JsonValue>;

/** A tree of path segments as JSON: a node whose keys are all numbers is an array (in numeric order). */
function treeJson(node: Tree | JsonValue): JsonValue {
  if (!(node instanceof Map)) return node;
  const keys = [...node.keys()];
  if (keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => treeJson(node.get(key) as Tree | JsonValue));
  }
  const object: JsonObject = {};
  for (const key of keys) {
    Object.defineProperty(object, key, {
      value: treeJson(node.get(key) as Tree | JsonValue),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/**
 * A list flattened into attributes (`llm.input_messages.0.message.role`, `gen_ai.prompt.1.content`…) read
 * back as JSON: the entries under `prefix` in index order (at most FLATTENED_ENTRIES, paths at most
 * FLATTENED_DEPTH deep), each the object its dotted paths describe; undefined when there is none.
 */
export function unflattened(attributes: Attributes, prefix: string): JsonValue[] | undefined {
  const root: Tree = new Map();
  for (const [key, value] of attributes) {
    if (!key.startsWith(prefix)) continue;
    const path = key.slice(prefix.length).split(".");
    if (path.length > FLATTENED_DEPTH || !/^\d{1,3}$/.test(path[0] ?? "")) continue;
    let node = root;
    for (const segment of path.slice(0, -1)) {
      const next = node.get(segment);
      if (next instanceof Map) node = next;
      else {
        const child: Tree = new Map();
        node.set(segment, child);
        node = child;
      }
    }
    node.set(path.at(-1) as string, value as JsonValue);
  }
  if (root.size === 0) return undefined;
  return treeJson(root) as JsonValue[];
}

/**
 * The attributes under a prefix (`traceloop.association.properties.`, `ai.telemetry.metadata.`) as one
 * object under `key` (the keys after the prefix, own properties: a `__proto__` is only a key), or undefined.
 */
export function prefixedObject(attributes: Attributes, prefix: string, key: string): JsonObject | undefined {
  const object: JsonObject = {};
  let found = false;
  for (const [name, value] of attributes) {
    if (!name.startsWith(prefix)) continue;
    Object.defineProperty(object, name.slice(prefix.length), {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    found = true;
  }
  return found ? { [key]: object } : undefined;
}
