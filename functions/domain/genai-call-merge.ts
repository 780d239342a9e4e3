/**
 * One model call seen by two spans: a framework's span (LangChain's `ChatOpenAI`, the AI SDK's `ai.generateText`)
 * around the provider client's own (OpenAI's `chat`), each instrumented by its library. The call is one
 * `llm_decision`, built from the richer of the two spans field by field, its tokens counted once. Pure; the
 * planner (genai-trace-plan.ts) merges the two spans of one request, and the store (otel/decision-enrichment.ts)
 * merges a span arriving later into the event its partner left.
 */
import type { GenAiSpan, InferenceUsage } from "./genai-span.js";
import { isJsonObject } from "./genai-span.js";
import type { JsonObject, JsonValue } from "./json.js";

/** What an `llm_decision` holds of its call's content (its `usage`, `model` and cost stay apart). */
export interface DecisionContent {
  readonly toolInput?: JsonObject | undefined;
  readonly toolOutput?: JsonObject | undefined;
  readonly reasoning?: string | undefined;
}

/**
 * The keys of an `llm_decision`'s `toolOutput` that restate its counted usage and its own span's duration:
 * they stay those of the event kept, never a partner's (the tokens are counted once, from one span).
 */
const COUNTED_KEYS: ReadonlySet<string> = new Set([
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheCreationTokens",
  "durationMs",
]);

/**
 * How much a value says, compared as [entries, JSON bytes]: nothing says least; a list by its entries first
 * (three messages say more than two, whatever their length), then anything by its JSON size.
 */
function richness(value: JsonValue | undefined): readonly [number, number] {
  if (value === undefined || value === null || value === "") return [-1, -1];
  const entries = Array.isArray(value) ? value.length : 0;
  return [entries, JSON.stringify(value).length];
}

/** `kept`, unless `other` says more (equals keep `kept`). */
export function richer<T extends JsonValue>(kept: T | undefined, other: T | undefined): T | undefined {
  const [keptEntries, keptSize] = richness(kept);
  const [otherEntries, otherSize] = richness(other);
  if (otherEntries !== keptEntries) return otherEntries > keptEntries ? other : kept;
  return otherSize > keptSize ? other : kept;
}

/** Whether a usage has a token count (a cost alone is not a count). */
export function hasCounts(usage: InferenceUsage | undefined): boolean {
  return (
    usage !== undefined &&
    (usage.promptTokens !== undefined || usage.completionTokens !== undefined || usage.totalTokens !== undefined)
  );
}

/**
 * The usage of a call seen by two spans, counted once: the inner span's when it has counts (the provider's
 * client read them from the answer), else the wrapper's; its cost likewise, else the other's.
 */
export function callUsage(inner: InferenceUsage | undefined, wrapper: InferenceUsage | undefined): InferenceUsage {
  const counted = hasCounts(inner) || !hasCounts(wrapper) ? (inner ?? {}) : (wrapper ?? {});
  const other = counted === inner ? wrapper : inner;
  return { ...counted, cost: counted.cost ?? other?.cost };
}

/**
 * The call of an inner span and the span wrapping it: the inner span (its ids, times and idempotency keys)
 * with every content field the richer of the two, the usage counted once (callUsage).
 */
export function mergedCall(inner: GenAiSpan, wrapper: GenAiSpan): GenAiSpan {
  const text = (a: string | undefined, b: string | undefined) => richer(a, b);
  return {
    ...inner,
    operation: inner.operation ?? wrapper.operation,
    provider: text(inner.provider, wrapper.provider),
    model: text(inner.model, wrapper.model),
    responseModel: text(inner.responseModel, wrapper.responseModel),
    responseId: inner.responseId ?? wrapper.responseId,
    finishReasons: richer(inner.finishReasons, wrapper.finishReasons),
    temperature: inner.temperature ?? wrapper.temperature,
    maxTokens: inner.maxTokens ?? wrapper.maxTokens,
    topP: inner.topP ?? wrapper.topP,
    usage: callUsage(inner.usage, wrapper.usage),
    inputMessages: richer(inner.inputMessages, wrapper.inputMessages),
    outputMessages: richer(inner.outputMessages, wrapper.outputMessages),
    systemInstructions: richer(inner.systemInstructions, wrapper.systemInstructions),
    answer: text(inner.answer, wrapper.answer),
  };
}

/** `kept` with each of its keys the richer of both objects' (own keys only; `fixed` keys stay `kept`'s). */
function mergedObject(
  kept: JsonObject | undefined,
  other: JsonObject | undefined,
  fixed: ReadonlySet<string>,
): JsonObject | undefined {
  if (other === undefined || !isJsonObject(other)) return kept;
  if (kept === undefined || !isJsonObject(kept)) {
    const taken: JsonObject = {};
    for (const key of Object.keys(other)) if (!fixed.has(key)) define(taken, key, other[key] as JsonValue);
    return Object.keys(taken).length === 0 ? kept : taken;
  }
  const merged: JsonObject = {};
  for (const key of Object.keys(kept)) define(merged, key, kept[key] as JsonValue);
  for (const key of Object.keys(other)) {
    if (fixed.has(key)) continue;
    const value = richer(Object.hasOwn(kept, key) ? kept[key] : undefined, other[key]);
    if (value !== undefined) define(merged, key, value);
  }
  return merged;
}

/** Sets an own key (a `__proto__` key is only a key). */
function define(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The content of a stored `llm_decision` (`kept`) enriched by its partner span's (`other`): each field of its
 * input and output the richer of the two, its answer text the longer; the counts its output restates stay its
 * own. Idempotent: merging the same content again changes nothing.
 */
export function mergedDecisionContent(kept: DecisionContent, other: DecisionContent): DecisionContent {
  return {
    toolInput: mergedObject(kept.toolInput, other.toolInput, new Set()),
    toolOutput: mergedObject(kept.toolOutput, other.toolOutput, COUNTED_KEYS),
    reasoning: richer(kept.reasoning, other.reasoning),
  };
}
