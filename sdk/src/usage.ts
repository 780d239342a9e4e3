/**
 * An event's `model` and token `usage` as the service takes them: pure, never
 * throws. A value the service would refuse is left out (the rest of the event
 * is sent), as the token counts of `llmCall` always were.
 */
import { toWellFormedString } from "./json-value.js";

/**
 * The token usage of one model call (OpenAI's convention: `cacheReadTokens`
 * and `cacheWriteTokens` are parts of `promptTokens`, `reasoningTokens` a part
 * of `completionTokens`). Each a non-negative integer.
 */
export interface EventUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  /** Prompt tokens read from the provider's prompt cache (OpenAI: `prompt_tokens_details.cached_tokens`). */
  cacheReadTokens?: number;
  /** Prompt tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
  /** Completion tokens spent on reasoning (OpenAI: `completion_tokens_details.reasoning_tokens`). */
  reasoningTokens?: number;
}

/** The usage keys the service takes, in the order it documents them. */
export const USAGE_KEYS = [
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
] as const satisfies readonly (keyof EventUsage)[];

/** The service's bound on one token count. */
export const MAX_TOKENS = 1_000_000_000_000;
/** The service's bound on a model name, in characters after trimming. */
export const MAX_MODEL_LENGTH = 256;

/** Whether `value` is a token count the service takes: a non-negative integer up to {@link MAX_TOKENS}. */
export function isTokenCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKENS;
}

/** A model name trimmed, or `undefined` when it is not a string of 1–256 characters once trimmed. */
export function eventModel(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const model = toWellFormedString(value.trim());
  return model.length >= 1 && model.length <= MAX_MODEL_LENGTH ? model : undefined;
}

/**
 * The known keys of `value` whose counts the service takes; `undefined` when
 * none is left. Unknown keys and bad counts (negative, fractional, too large,
 * not numbers) are left out.
 */
export function eventUsage(value: unknown): EventUsage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const source = value as Record<string, unknown>;
  const usage: EventUsage = {};
  let kept = 0;
  for (const key of USAGE_KEYS) {
    const count = Object.hasOwn(source, key) ? source[key] : undefined;
    if (isTokenCount(count)) {
      usage[key] = count;
      kept++;
    }
  }
  return kept === 0 ? undefined : usage;
}
