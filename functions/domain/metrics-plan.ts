/**
 * Planning a metrics query (`POST /api/sdk/metrics`): which counted items can answer it exactly, and a 400 that
 * says which field, why and what is possible for every combination they cannot — never a wrong number, never a
 * scan. The rules follow from what is counted (docs/data-model.md):
 * - the day rollups exist per agent and per external user, never per agent and user together;
 * - model items exist per agent only, so model figures have no user dimension, and per model nothing else is
 *   counted; tool items exist per agent and per user, and per tool only calls and errors are counted;
 * - score items exist per agent and score name;
 * - the rollups keep no list of a tenant's users (they are named in `filters.user`), but one of its agents: the
 *   tenant's figures are the sum of its agents' (the busiest agents, as GET /api/sdk/agents reads them);
 * - hours exist only in the hourly alert series of everything, per agent or for all agents, for 8 days.
 * Pure.
 */

import { type FieldIssue, ValidationError } from "./errors.js";
import {
  METRICS_LIMITS as LIMIT,
  type Measure,
  type MeasureSource,
  type MetricDimension,
  type MetricGranularity,
  measuresOf,
  sourceOf,
} from "./metrics-measures.js";
import { dayOf } from "./rollup.js";

export interface MetricsFilters {
  readonly agent?: readonly string[] | undefined;
  readonly user?: readonly string[] | undefined;
  readonly model?: readonly string[] | undefined;
  readonly tool?: readonly string[] | undefined;
  readonly score?: string | undefined;
}

/** A metrics query as the request schema gives it (names checked, lists bounded and without repeats). */
export interface MetricsQuery {
  /** A day (`YYYY-MM-DD`) or an ISO timestamp; default: `defaultDays` days (or `defaultHours` hours) up to `to`. */
  readonly from?: string | undefined;
  /** A day or an ISO timestamp; default: now. */
  readonly to?: string | undefined;
  readonly granularity: MetricGranularity;
  readonly measures: readonly Measure[];
  readonly groupBy: readonly MetricDimension[];
  readonly filters: MetricsFilters;
}

/** Which rollup partitions a day or total answer reads. */
export type RollupScope =
  /** Named agents; `undefined`: the tenant's busiest agents (their sum is the tenant's figure). */
  | { readonly dimension: "AGENT"; readonly agents: readonly string[] | undefined }
  | { readonly dimension: "USER"; readonly users: readonly string[] };

export interface RollupPlan {
  readonly kind: "rollup";
  readonly granularity: "day" | "total";
  readonly fromDay: string;
  readonly toDay: string;
  readonly scope: RollupScope;
  readonly sources: readonly MeasureSource[];
  readonly measures: readonly Measure[];
  readonly groupBy: readonly MetricDimension[];
  readonly filters: MetricsFilters;
}

export interface SeriesPlan {
  readonly kind: "series";
  /** The first and last hour (their starts, epoch ms). */
  readonly firstHourMs: number;
  readonly lastHourMs: number;
  /** Named agents; `"busiest"`: each of the tenant's busiest agents (grouped by agent); `"all"`: the all-agents series. */
  readonly agents: readonly string[] | "busiest" | "all";
  readonly measures: readonly Measure[];
  readonly groupBy: readonly MetricDimension[];
}

export type MetricsPlan = RollupPlan | SeriesPlan;

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

function list(values: readonly string[]): string {
  return values.join(", ");
}

/** A refusal: one field, why, and what is possible instead. */
function refuse(path: string, message: string): ValidationError {
  const issues: FieldIssue[] = [{ path, message }];
  return new ValidationError(`Invalid metrics query: ${message}`, issues);
}

function timeOf(value: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
}

function dayPeriod(query: MetricsQuery, nowMs: number): { fromDay: string; toDay: string } {
  const toDay = dayOf(new Date(query.to === undefined ? nowMs : timeOf(query.to)).toISOString());
  const fromDay =
    query.from === undefined
      ? dayOf(new Date(Date.parse(toDay) - (LIMIT.defaultDays - 1) * DAY_MS).toISOString())
      : dayOf(new Date(timeOf(query.from)).toISOString());
  if (fromDay > toDay) throw refuse("from", "from must not be after to");
  const days = (Date.parse(toDay) - Date.parse(fromDay)) / DAY_MS + 1;
  if (days > LIMIT.maxDays) {
    throw refuse("from", `a query covers at most ${LIMIT.maxDays} days (this one ${days}): narrow from and to`);
  }
  return { fromDay, toDay };
}

function hourPeriod(query: MetricsQuery, nowMs: number): { firstHourMs: number; lastHourMs: number } {
  const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
  const lastHourMs = floorHour(query.to === undefined ? nowMs : timeOf(query.to));
  const firstHourMs =
    query.from === undefined ? lastHourMs - (LIMIT.defaultHours - 1) * HOUR_MS : floorHour(timeOf(query.from));
  if (firstHourMs > lastHourMs) throw refuse("from", "from must not be after to");
  const hours = (lastHourMs - firstHourMs) / HOUR_MS + 1;
  if (hours > LIMIT.maxHours) {
    throw refuse(
      "from",
      `an hour query covers at most ${LIMIT.maxHours} hours (this one ${hours}): narrow from and to`,
    );
  }
  const oldest = floorHour(nowMs) - LIMIT.hourRetentionHours * HOUR_MS;
  if (firstHourMs < oldest) {
    throw refuse(
      "from",
      `hours are kept ${LIMIT.hourRetentionHours + 1} hours (the hourly series): from must be at or after ` +
        `${new Date(oldest).toISOString()}; use granularity day for older figures`,
    );
  }
  return { firstHourMs, lastHourMs };
}

function planSeries(query: MetricsQuery, nowMs: number): SeriesPlan {
  const dayOnly = query.measures.filter((measure) => sourceOf(measure) !== "series");
  if (dayOnly.length > 0) {
    throw refuse(
      "measures",
      `${list(dayOnly)} ${dayOnly.length === 1 ? "is" : "are"} counted per day: at granularity hour the measures ` +
        `are the hourly series' (${list(measuresOf("series"))}); use granularity day or total for the others`,
    );
  }
  const otherGroups = query.groupBy.filter((dimension) => dimension !== "agent");
  if (otherGroups.length > 0) {
    throw refuse(
      "groupBy",
      `at granularity hour rows are grouped by agent only (the hourly series of everything are kept per agent); ` +
        `${list(otherGroups)} needs granularity day or total`,
    );
  }
  for (const dimension of ["user", "model", "tool"] as const) {
    if (query.filters[dimension] !== undefined) {
      throw refuse(
        `filters.${dimension}`,
        `at granularity hour only filters.agent applies (the hourly series of everything are kept per agent); ` +
          `filter by ${dimension} at granularity day or total`,
      );
    }
  }
  if (query.filters.score !== undefined) {
    throw refuse("filters.score", "filters.score applies to the score measures, which are counted per day");
  }
  const agents = query.filters.agent ?? (query.groupBy.includes("agent") ? "busiest" : "all");
  return { kind: "series", ...hourPeriod(query, nowMs), agents, measures: query.measures, groupBy: query.groupBy };
}

function uses(query: MetricsQuery, dimension: MetricDimension): boolean {
  return query.groupBy.includes(dimension) || query.filters[dimension] !== undefined;
}

/** The one dimension-specific source every measure must come from when rows are split or filtered by `dimension`. */
function requireSource(query: MetricsQuery, dimension: "model" | "tool", source: MeasureSource): void {
  const others = query.measures.filter((measure) => sourceOf(measure) !== source);
  if (others.length > 0) {
    throw refuse(
      "measures",
      `per ${dimension} only ${list(measuresOf(source))} are counted; ` +
        `${list(others)} ${others.length === 1 ? "is" : "are"} not: drop ${dimension} from groupBy and filters, ` +
        `or ask for ${others.length === 1 ? "that measure" : "those measures"} in another query`,
    );
  }
}

function planRollup(query: MetricsQuery, granularity: "day" | "total", nowMs: number): RollupPlan {
  const hourOnly = query.measures.filter((measure) => sourceOf(measure) === "series");
  if (hourOnly.length > 0) {
    throw refuse(
      "measures",
      `${list(hourOnly)} ${hourOnly.length === 1 ? "is" : "are"} counted in the hourly series only: ` +
        "use granularity hour (the last 8 days)",
    );
  }
  const byUser = uses(query, "user");
  if (byUser && uses(query, "agent")) {
    throw refuse(
      query.groupBy.includes("user") ? "groupBy" : "filters.user",
      "the rollups are counted per agent and per user, never per agent and user together: use one of the two",
    );
  }
  if (query.groupBy.includes("user") && query.filters.user === undefined) {
    throw refuse(
      "filters.user",
      `grouping by user needs the users named in filters.user (at most ${LIMIT.maxFilterValues}): ` +
        "the rollups keep no list of a tenant's users",
    );
  }
  if (uses(query, "model") && uses(query, "tool")) {
    throw refuse("groupBy", "models and tools are counted apart, never together: use one of the two");
  }
  if (uses(query, "model")) requireSource(query, "model", "model");
  if (uses(query, "tool")) requireSource(query, "tool", "tool");
  const sources = [...new Set(query.measures.map(sourceOf))];
  if (byUser) {
    const agentOnly = query.measures.filter((measure) => ["model", "score"].includes(sourceOf(measure)));
    if (agentOnly.length > 0) {
      throw refuse(
        "measures",
        `${list(agentOnly)} ${agentOnly.length === 1 ? "is" : "are"} counted per agent only, not per user`,
      );
    }
  }
  if (sources.includes("score") && query.filters.score === undefined) {
    throw refuse("filters.score", "the score measures are per score name: name one in filters.score");
  }
  if (!sources.includes("score") && query.filters.score !== undefined) {
    throw refuse("filters.score", `filters.score applies to the score measures only (${list(measuresOf("score"))})`);
  }
  const scope: RollupScope = byUser
    ? { dimension: "USER", users: query.filters.user ?? [] }
    : { dimension: "AGENT", agents: query.filters.agent };
  return {
    kind: "rollup",
    granularity,
    ...dayPeriod(query, nowMs),
    scope,
    sources,
    measures: query.measures,
    groupBy: query.groupBy,
    filters: query.filters,
  };
}

/** The plan of `query` at `nowMs`, or the 400 (ValidationError) saying why the counted items cannot answer it. */
export function planMetricsQuery(query: MetricsQuery, nowMs: number): MetricsPlan {
  return query.granularity === "hour" ? planSeries(query, nowMs) : planRollup(query, query.granularity, nowMs);
}
