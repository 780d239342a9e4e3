/**
 * Analytics rollups: per-day counters per agent and per external user,
 * maintained as sessions start and end. Pure: the shape of a day, the
 * duration histogram and how a stats read is assembled from day items.
 *
 * A session is attributed to the UTC day it started. Its outcome, costs,
 * tokens, duration and event-derived counts (events, event cost, tool calls,
 * tool errors) are folded in when it ends; events recorded after the end are
 * folded in as they arrive.
 */
import {
  type DurationBins,
  durationBin,
  durationBinAttribute,
  mergeDurationBins,
  percentileFromBins,
} from "./duration-bins.js";

/**
 * Upper bounds (ms, inclusive) of the coarse duration histogram buckets (`h00`…`h14` on the day item); the last
 * bucket is open-ended. Still counted beside the fine bins (duration-bins.ts) so that a day counted before the
 * fine bins existed stays exact when its sessions are deleted or moved, and is answered from these buckets.
 */
export const DURATION_BUCKETS_MS = [
  100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000,
] as const;
export const BUCKET_COUNT = DURATION_BUCKETS_MS.length + 1;

export function bucketAttribute(index: number): string {
  return `h${String(index).padStart(2, "0")}`;
}

/** The coarse bucket holding `durationMs`. */
export function durationBucket(durationMs: number): number {
  const index = DURATION_BUCKETS_MS.findIndex((bound) => durationMs <= bound);
  return index === -1 ? DURATION_BUCKETS_MS.length : index;
}

/** The UTC day (YYYY-MM-DD) of an ISO timestamp. */
export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

/** Numeric counters of one rollup day; every one is maintained with ADD. */
export const DAY_COUNTERS = [
  "sessions",
  "completed",
  "failed",
  "succeeded",
  "reportedCost",
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "durationCount",
  "durationSum",
  "events",
  "eventCost",
] as const;
export type DayCounter = (typeof DAY_COUNTERS)[number];

/** Day counters, coarse buckets (`h…`, on the day item) and fine duration bins (`b…`, on the day's duration item). */
export type DayCounters = Partial<Record<DayCounter | `h${string}` | `b${number}`, number>>;

/** What an ended session contributes to its day (negated to take it back out). */
export interface SessionOutcome {
  readonly status: "completed" | "failed";
  readonly success?: boolean | undefined;
  readonly estimatedCost?: number | undefined;
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly durationMs?: number | undefined;
  readonly eventCount: number;
  readonly eventCost: number;
}

export function outcomeCounters(outcome: SessionOutcome, sign: 1 | -1 = 1): DayCounters {
  const counters: DayCounters = {
    completed: outcome.status === "completed" ? sign : 0,
    failed: outcome.status === "failed" ? sign : 0,
    succeeded: outcome.success === true ? sign : 0,
    reportedCost: sign * (outcome.estimatedCost ?? 0),
    promptTokens: sign * (outcome.promptTokens ?? 0),
    completionTokens: sign * (outcome.completionTokens ?? 0),
    totalTokens: sign * (outcome.totalTokens ?? 0),
    events: sign * outcome.eventCount,
    eventCost: sign * outcome.eventCost,
  };
  if (outcome.durationMs !== undefined) {
    counters.durationCount = sign;
    counters.durationSum = sign * outcome.durationMs;
    counters[bucketAttribute(durationBucket(outcome.durationMs)) as `h${string}`] = sign;
    counters[durationBinAttribute(durationBin(outcome.durationMs))] = sign;
  }
  return counters;
}

/** The most tools each per-tool counter of a session keeps by name (further tools count as OTHER_TOOL), so that
 * ending or deleting a session stays within one transaction (100 items). */
export const MAX_TOOLS_PER_SESSION = 20;
export const OTHER_TOOL = "(other)";

/**
 * A session's per-tool counts as one entry per tool (times `sign`), for its rollups. The counter maps
 * are keyed by client text, so only own keys count: a tool named `constructor` is not Object's.
 */
export function toolCounts(
  calls: Readonly<Record<string, number>>,
  errors: Readonly<Record<string, number>>,
  sign: 1 | -1 = 1,
): Record<string, { calls: number; errors: number }> {
  const own = (counts: Readonly<Record<string, number>>, name: string) =>
    Object.hasOwn(counts, name) ? (counts[name] ?? 0) : 0;
  const names = new Set([...Object.keys(calls), ...Object.keys(errors)]);
  // Object.fromEntries defines own properties, also one named `__proto__`.
  return Object.fromEntries(
    [...names].map((name) => [name, { calls: sign * own(calls, name), errors: sign * own(errors, name) }]),
  );
}

export interface DayRow extends Required<Record<DayCounter, number>> {
  readonly day: string;
  /** The coarse buckets, by index. */
  histogram: readonly number[];
  /** The fine bins counted (empty for a day counted before they existed). */
  durationBins: DurationBins;
}

export interface ToolRow {
  readonly day: string;
  readonly toolName: string;
  readonly calls: number;
  readonly errors: number;
}

export interface FailureRow {
  readonly day: string;
  readonly reason: string;
  readonly count: number;
}

/** Coarse percentile from the buckets: the upper bound of the bucket holding it (null when empty or open-ended). */
export function percentileFromHistogram(histogram: readonly number[], fraction: number): number | null {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(fraction * total);
  let cumulative = 0;
  for (let index = 0; index < histogram.length; index++) {
    cumulative += histogram[index] ?? 0;
    if (cumulative >= rank) return DURATION_BUCKETS_MS[index] ?? null;
  }
  return null;
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

/** Percentiles read from the fine bins, or from the coarse buckets when some duration is counted only there. */
export type DurationPrecision = "fine" | "coarse";

/**
 * Whether every duration of the row is in its fine bins. The coarse buckets and `durationCount` count every
 * duration ever counted (and withdrawn); the fine bins miss exactly those counted before the bins existed
 * (their withdrawal takes them out of both), so the two totals are equal exactly when there is none.
 */
export function durationPrecision(row: Pick<DayRow, "durationCount" | "durationBins">): DurationPrecision {
  let binned = 0;
  for (const count of row.durationBins.values()) binned += count;
  return binned === row.durationCount ? "fine" : "coarse";
}

function durationSummary(row: Omit<DayRow, "day">) {
  const precision = durationPrecision(row);
  const percentile = (fraction: number) =>
    precision === "fine"
      ? percentileFromBins(row.durationBins, fraction)
      : percentileFromHistogram(row.histogram, fraction);
  return {
    p50: percentile(0.5),
    p95: percentile(0.95),
    p99: percentile(0.99),
    mean: row.durationCount === 0 ? null : round(row.durationSum / row.durationCount),
    precision,
  };
}

function summary(row: Omit<DayRow, "day">) {
  const ended = row.completed + row.failed;
  return {
    sessions: row.sessions,
    completed: row.completed,
    failed: row.failed,
    successRate: ended === 0 ? null : round(row.succeeded / ended),
    reportedCost: round(row.reportedCost),
    eventCost: round(row.eventCost),
    events: row.events,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    totalTokens: row.totalTokens,
    durationMs: durationSummary(row),
  };
}

const TOP = 10;

/** Assembles a stats response from the day, tool and failure rows of a period. */
export function assembleStats(days: readonly DayRow[], tools: readonly ToolRow[], failures: readonly FailureRow[]) {
  const totals: Omit<DayRow, "day"> = {
    ...(Object.fromEntries(DAY_COUNTERS.map((counter) => [counter, 0])) as Record<DayCounter, number>),
    histogram: Array.from({ length: BUCKET_COUNT }, () => 0),
    durationBins: mergeDurationBins(days.map((day) => day.durationBins)),
  };
  for (const day of days) {
    for (const counter of DAY_COUNTERS) totals[counter] += day[counter];
    totals.histogram = totals.histogram.map((count, index) => count + (day.histogram[index] ?? 0));
  }
  const toolTotals = new Map<string, { calls: number; errors: number }>();
  for (const tool of tools) {
    const entry = toolTotals.get(tool.toolName) ?? { calls: 0, errors: 0 };
    toolTotals.set(tool.toolName, { calls: entry.calls + tool.calls, errors: entry.errors + tool.errors });
  }
  const failureTotals = new Map<string, number>();
  for (const failure of failures)
    failureTotals.set(failure.reason, (failureTotals.get(failure.reason) ?? 0) + failure.count);
  const byName = (a: [string, unknown], b: [string, unknown]) => a[0].localeCompare(b[0]);
  return {
    totals: summary(totals),
    days: days.map((day) => ({ day: day.day, ...summary(day) })),
    topFailureReasons: [...failureTotals]
      .filter(([, count]) => count > 0)
      .sort((a, b) => b[1] - a[1] || byName(a, b))
      .slice(0, TOP)
      .map(([reason, count]) => ({ reason, count })),
    topToolsByCalls: [...toolTotals]
      .filter(([, totals]) => totals.calls > 0)
      .sort((a, b) => b[1].calls - a[1].calls || byName(a, b))
      .slice(0, TOP)
      .map(([toolName, totals]) => ({ toolName, calls: totals.calls })),
    topToolsByErrors: [...toolTotals]
      .filter(([, totals]) => totals.errors > 0)
      .sort((a, b) => b[1].errors - a[1].errors || byName(a, b))
      .slice(0, TOP)
      .map(([toolName, totals]) => ({ toolName, errors: totals.errors })),
  };
}

/**
 * What model calls (events carrying `model` or `usage`) add up to, per model: calls, their cost (USD) and
 * token usage per type (functions/pricing/usage.ts), and how many of them found no price (costSource
 * `unpriced`). The same counters on a session (per model it used) and on its agent's day (per model).
 */
export const MODEL_COUNTERS = [
  "calls",
  "estimatedCost",
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
  "unpricedCalls",
] as const;
export type ModelCounter = (typeof MODEL_COUNTERS)[number];
export type ModelTally = Readonly<Record<ModelCounter, number>>;

/**
 * The most model names a session counts by name; its calls of further models count as OTHER_MODEL. With OTHER_MODEL
 * and UNNAMED_MODEL a session adds to at most 6 model items of its agent's day, so deleting it stays within one
 * transaction (100 items: the session, its tombstone, its agent summary, 2 × (day, durations, failure and up to 41
 * tools), the model items, a trace record and a receipt: 99 at most); its own per-model list (`modelUsage`) holds at
 * most 6 entries.
 */
export const MAX_MODELS_PER_SESSION = 4;
export const OTHER_MODEL = "(other)";
/** The name model calls without a `model` are counted under (model names are 1–256 characters, never empty). */
export const UNNAMED_MODEL = "";

export function emptyModelTally(): Record<ModelCounter, number> {
  return Object.fromEntries(MODEL_COUNTERS.map((counter) => [counter, 0])) as Record<ModelCounter, number>;
}

/** `a + sign × b`, counter by counter. */
export function addModelTally(a: ModelTally, b: ModelTally, sign: 1 | -1 = 1): Record<ModelCounter, number> {
  const sum = emptyModelTally();
  for (const counter of MODEL_COUNTERS) sum[counter] = a[counter] + sign * b[counter];
  return sum;
}

export function isZeroTally(tally: ModelTally): boolean {
  return MODEL_COUNTERS.every((counter) => tally[counter] === 0);
}

/** Per-model tallies keyed by model name (client text: a Map, so `__proto__` and `constructor` are plain keys). */
export type ModelTallies = ReadonlyMap<string, ModelTally>;

/** A session's per-model tallies as stored on its item (`modelUsage`): `[name, ...MODEL_COUNTERS]` lists. */
export type StoredModelUsage = readonly (readonly [string, ...number[]])[];

export function storedModelUsage(tallies: ModelTallies): [string, ...number[]][] {
  return [...tallies].map(([name, tally]) => [name, ...MODEL_COUNTERS.map((counter) => tally[counter])]);
}

/** A stored `modelUsage` list as tallies (malformed entries skipped; absent counters 0). */
export function modelUsageOf(stored: unknown): Map<string, ModelTally> {
  const tallies = new Map<string, ModelTally>();
  if (!Array.isArray(stored)) return tallies;
  for (const entry of stored) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
    const tally = emptyModelTally();
    MODEL_COUNTERS.forEach((counter, index) => {
      const value = entry[index + 1];
      tally[counter] = typeof value === "number" && Number.isFinite(value) ? value : 0;
    });
    tallies.set(entry[0], tally);
  }
  return tallies;
}

/** The same tallies with every counter times `sign`. */
export function signedTallies(tallies: ModelTallies, sign: 1 | -1): Map<string, ModelTally> {
  return new Map([...tallies].map(([name, tally]) => [name, addModelTally(emptyModelTally(), tally, sign)]));
}

/** One model's tally on one day of one agent, as read from its rollup. */
export interface ModelRow extends ModelTally {
  readonly day: string;
  readonly model: string;
}

/** One line of a models response: a model's totals over a period (`model` null: calls without a model name). */
export interface ModelTotals extends ModelTally {
  readonly model: string | null;
}

/**
 * A models response from the model rows of a period (of one agent or several): per model its totals, the most
 * costly first (then the most calls, then by name); the calls without a model name, if any, as one line with
 * `model: null` after the named ones. Models whose counts are all 0 (withdrawn) are left out.
 */
export function assembleModels(rows: Iterable<ModelRow>): { models: ModelTotals[]; totals: ModelTally } {
  const byModel = new Map<string, ModelTally>();
  let totals: ModelTally = emptyModelTally();
  for (const row of rows) {
    byModel.set(row.model, addModelTally(byModel.get(row.model) ?? emptyModelTally(), row));
    totals = addModelTally(totals, row);
  }
  const line = (model: string | null, tally: ModelTally): ModelTotals => ({
    model,
    ...tally,
    estimatedCost: round(tally.estimatedCost),
  });
  const named = [...byModel]
    .filter(([name, tally]) => name !== UNNAMED_MODEL && !isZeroTally(tally))
    .sort(
      ([nameA, a], [nameB, b]) =>
        b.estimatedCost - a.estimatedCost || b.calls - a.calls || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0),
    )
    .map(([name, tally]) => line(name, tally));
  const unnamed = byModel.get(UNNAMED_MODEL);
  return {
    models: unnamed === undefined || isZeroTally(unnamed) ? named : [...named, line(null, unnamed)],
    totals: { ...totals, estimatedCost: round(totals.estimatedCost) },
  };
}
