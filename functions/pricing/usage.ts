/**
 * Token usage of one model call, as ats records it (on events; the dialects and clients map their providers' fields
 * into it). Every field is optional and a non-negative integer. The convention is OpenAI's, written down once:
 *
 * - `promptTokens` counts **every** input token, the cached ones included: `cacheReadTokens` and `cacheWriteTokens`
 *   are parts of it, not additions to it. (OpenAI's `prompt_tokens` already includes `cached_tokens`; Anthropic's
 *   `input_tokens` excludes cache reads and writes, so its mapping adds `cache_read_input_tokens` and
 *   `cache_creation_input_tokens` to it.)
 * - `completionTokens` counts **every** output token, the reasoning ones included: `reasoningTokens` is a part of it.
 *   (OpenAI's `completion_tokens` includes `reasoning_tokens`; Gemini's `candidatesTokenCount` excludes
 *   `thoughtsTokenCount`, so its mapping adds them.)
 * - `totalTokens` is `promptTokens + completionTokens` when both are known; alone it cannot be priced.
 */
export interface TokenUsage {
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly cacheReadTokens?: number | undefined;
  readonly cacheWriteTokens?: number | undefined;
  readonly reasoningTokens?: number | undefined;
}

/** The usage fields' names, in the order the docs list them. */
export const TOKEN_USAGE_FIELDS = [
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
] as const satisfies readonly (keyof TokenUsage)[];
