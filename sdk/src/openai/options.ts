/** The options of `wrapOpenAI` and the usage a cost function is given. */
import type { Run } from "../run.js";

/** Prices of one model in currency units (e.g. USD) per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Price of cached prompt tokens (`prompt_tokens_details.cached_tokens`); default `inputPerMillion`. */
  readonly cachedInputPerMillion?: number;
}

/**
 * Prices by model name. A call's model is looked up by exact name, else by the
 * longest key that is a prefix of it (`gpt-4o-mini` prices `gpt-4o-mini-2024-07-18`).
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The token usage of one call, as the cost function receives it. */
export interface LlmUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Prompt tokens served from the provider's cache, when it says. */
  readonly cachedPromptTokens?: number;
  /** Completion tokens spent on hidden reasoning, when the provider says (already in `completionTokens`). */
  readonly reasoningTokens?: number;
}

export interface WrapOpenAIOptions {
  /** The run to record into. Default: `currentRun()` at the time of each call; with no run the call is not recorded. */
  readonly run?: Run;
  /**
   * Whether message text is recorded: a summary of the prompt and the answer
   * as the event's `reasoning` (default `true`). With `false` no text of the
   * messages, answers or tool arguments is recorded, only the model, counts,
   * tool names, tokens and cost.
   */
  readonly captureContent?: boolean;
  /**
   * Your own prices per model: an override, not needed. Without them the
   * wrapper sends no `estimatedCost` and the service prices each call from its
   * own table by `model` and `usage` (docs/pricing.md). With them, a call whose
   * model they price is sent with that `estimatedCost`, which the service keeps
   * as reported; a model they do not price is left to the service.
   */
  readonly prices?: PriceTable;
  /**
   * Your own cost of one call (an override like `prices`); wins over `prices`
   * unless it returns `undefined` (or throws, or returns a negative or
   * non-finite number).
   */
  readonly cost?: (model: string, usage: LlmUsage) => number | undefined;
  /**
   * Chat completion streams report tokens only when asked
   * (`stream_options: { include_usage: true }`). By default the wrapper asks
   * for them when the request does not say, and hides what that adds (the
   * final usage-only chunk and the `usage: null` of the others) so the stream
   * reads exactly as it would have. `false`: send the request as it is; such
   * streams are then recorded with their model but without tokens, so the
   * service cannot price them.
   */
  readonly includeStreamUsage?: boolean;
}
