/**
 * A session's totals as the read API returns them, written once (docs/read-api.md, "Session totals"): each of
 * `estimatedCost`, `promptTokens`, `completionTokens` and `totalTokens` is what the client reported for the
 * whole run (PATCH, the session's create, or the root span of an OpenTelemetry trace) when it reported it, else
 * the sum over the session's counted events (`eventCost`; the events' `usage`). The token types no client reports
 * for a session (`cacheReadTokens`, `cacheWriteTokens`, `reasoningTokens`) are always the events' sums. A sum is
 * null while no counted event could contribute to it: no model call (an event with `model` or `usage`) for the
 * tokens (nor one that reported that token type), no model call and no event cost for the cost. Pure.
 */
import type { TOKEN_USAGE_FIELDS, TokenUsage } from "../pricing/usage.js";

/** The session item's attributes summing its counted events' usage, per token type (ADDed by the stream consumer). */
export const EVENT_USAGE_ATTRIBUTES = {
  promptTokens: "eventPromptTokens",
  completionTokens: "eventCompletionTokens",
  totalTokens: "eventTotalTokens",
  cacheReadTokens: "eventCacheReadTokens",
  cacheWriteTokens: "eventCacheWriteTokens",
  reasoningTokens: "eventReasoningTokens",
} as const satisfies Record<(typeof TOKEN_USAGE_FIELDS)[number], string>;

/** The session's sums of its events' usage, from its item's EVENT_USAGE_ATTRIBUTES. */
export type EventUsageSums = Partial<
  Record<(typeof EVENT_USAGE_ATTRIBUTES)[keyof typeof EVENT_USAGE_ATTRIBUTES], number | undefined>
>;

/** The usage sums of a session (absent attributes: nothing counted of that type). */
export function eventUsageOf(sums: EventUsageSums): TokenUsage {
  return Object.fromEntries(
    Object.entries(EVENT_USAGE_ATTRIBUTES).map(([field, attribute]) => [field, sums[attribute]]),
  ) as TokenUsage;
}

/** What a session item records that the rule reads. */
export interface SessionCounts {
  /** Client-reported totals. */
  readonly estimatedCost?: number | undefined;
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  /** Sums over the counted events. */
  readonly eventCost: number;
  readonly eventUsage?: TokenUsage | undefined;
  readonly modelCalls?: number | undefined;
  readonly unpricedCalls?: number | undefined;
}

export interface SessionTotals {
  readonly estimatedCost: number | null;
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  readonly totalTokens: number | null;
  readonly cacheReadTokens: number | null;
  readonly cacheWriteTokens: number | null;
  readonly reasoningTokens: number | null;
  /** Model calls counted, and how many of them had no price. */
  readonly modelCalls: number;
  readonly unpricedCalls: number;
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

export function sessionTotals(counts: SessionCounts): SessionTotals {
  const modelCalls = counts.modelCalls ?? 0;
  // A token type no counted event reported (its attribute never ADDed) is unknown, not zero: a stream recorded
  // without usage says nothing about its tokens.
  const summed = (value: number | undefined) => (modelCalls > 0 && value !== undefined ? value : null);
  const usage = counts.eventUsage ?? {};
  return {
    estimatedCost: counts.estimatedCost ?? (modelCalls > 0 || counts.eventCost !== 0 ? round(counts.eventCost) : null),
    promptTokens: counts.promptTokens ?? summed(usage.promptTokens),
    completionTokens: counts.completionTokens ?? summed(usage.completionTokens),
    totalTokens: counts.totalTokens ?? summed(usage.totalTokens),
    cacheReadTokens: summed(usage.cacheReadTokens),
    cacheWriteTokens: summed(usage.cacheWriteTokens),
    reasoningTokens: summed(usage.reasoningTokens),
    modelCalls,
    unpricedCalls: counts.unpricedCalls ?? 0,
  };
}
