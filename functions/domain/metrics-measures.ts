/**
 * What `POST /api/sdk/metrics` can measure, and from which counted items (docs/metrics.md). Every measure has
 * one meaning at every granularity it is offered at: the day rollups attribute a session, its outcome, its
 * events and its scores to the UTC day it started; the hourly alert series count each thing at its own time
 * (a start, an end, an event's occurrence) and are not withdrawn when a session is deleted or moved, so their
 * measures carry names of their own and are offered at hour granularity only. Pure.
 */

/** Where a measure's figures are counted. */
export type MeasureSource =
  /** The day items and their duration items (agent and user rollups). */
  | "day"
  /** The tool items (agent and user rollups). */
  | "tool"
  /** The model items (agent rollups only: models are not counted per external user). */
  | "model"
  /** The score items of one score name (agent rollups only). */
  | "score"
  /** The hourly alert series of everything (`none` facet), per agent or for all agents. */
  | "series";

export const MEASURE_SOURCES = {
  // Day rollups: a session, its outcome and its events on the day it started.
  sessions: "day",
  completed: "day",
  failed: "day",
  successRate: "day",
  events: "day",
  eventCost: "day",
  reportedCost: "day",
  promptTokens: "day",
  completionTokens: "day",
  totalTokens: "day",
  durationMean: "day",
  durationP50: "day",
  durationP95: "day",
  durationP99: "day",
  toolCalls: "tool",
  toolErrors: "tool",
  modelCalls: "model",
  modelCost: "model",
  modelPromptTokens: "model",
  modelCompletionTokens: "model",
  modelTotalTokens: "model",
  modelCacheReadTokens: "model",
  modelCacheWriteTokens: "model",
  modelReasoningTokens: "model",
  unpricedCalls: "model",
  scoreCount: "score",
  scoreMean: "score",
  scoreP50: "score",
  scoreP90: "score",
  scoreP99: "score",
  scoreTrueShare: "score",
  // Hourly series: each count at its own time.
  sessionsStarted: "series",
  sessionsEnded: "series",
  sessionsEndedFailed: "series",
  errorEvents: "series",
  costAtTime: "series",
  tokensAtTime: "series",
  endedDurationP50: "series",
  endedDurationP95: "series",
  endedDurationP99: "series",
} as const satisfies Record<string, MeasureSource>;

export type Measure = keyof typeof MEASURE_SOURCES;
export const MEASURES = Object.keys(MEASURE_SOURCES) as [Measure, ...Measure[]];

export function sourceOf(measure: Measure): MeasureSource {
  return MEASURE_SOURCES[measure];
}

export function measuresOf(source: MeasureSource): Measure[] {
  return MEASURES.filter((measure) => MEASURE_SOURCES[measure] === source);
}

/** The dimensions an answer's rows may be grouped by besides time. */
export const METRIC_DIMENSIONS = ["agent", "user", "model", "tool"] as const;
export type MetricDimension = (typeof METRIC_DIMENSIONS)[number];

export const METRIC_GRANULARITIES = ["day", "hour", "total"] as const;
export type MetricGranularity = (typeof METRIC_GRANULARITIES)[number];

/** The bounds of one request. */
export const METRICS_LIMITS = {
  /** Days a day or total answer covers at most (the rollups are kept 400 days by default). */
  maxDays: 400,
  /** Days covered when `from` is not given. */
  defaultDays: 30,
  /** Hours an hour answer covers at most (one series read covers at most 7 days). */
  maxHours: 168,
  /** Hours covered when `from` is not given at hour granularity. */
  defaultHours: 24,
  /** How far back an hour answer may start: the hourly buckets are kept 8 days after their end (less a margin). */
  hourRetentionHours: 191,
  /** Values one filter names at most (each named agent or user is one Query). */
  maxFilterValues: 20,
  maxLimit: 1000,
  defaultLimit: 100,
} as const;
