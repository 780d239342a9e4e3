/**
 * What a monitor measures: the series it reads (facets of its filters) and its figure and samples from the
 * series' totals over its window. Pure.
 *
 * Samples (what `minSessions` counts): ended sessions for the session metrics (`sessions_started`: started
 * sessions; cost and tokens of one model: that model's calls), tool calls for `tool_failure_rate`, scores for the
 * score metrics. Rates are percentages; durations are the nearest-rank percentile read from the fine duration
 * bins, as the daily stats read theirs (duration-bins.ts percentileFromBins), in ms.
 */
import {
  emptySeriesTotals,
  SERIES_COUNTERS,
  type SeriesCounter,
  type SeriesFacet,
  type SeriesTotals,
} from "./alert-series.js";
import { percentileFromBins } from "./duration-bins.js";
import type { MonitorFilters, MonitorMetric } from "./monitor.js";

/** The facets a monitor reads: one, or for a label's share the score's and the label's. */
export interface MonitorSeries {
  readonly agent: string | undefined;
  readonly facet: SeriesFacet;
  /** `label_share` only: the label's counts, over the score's. */
  readonly labelFacet?: SeriesFacet | undefined;
}

export function monitorSeries(metric: MonitorMetric, filters: MonitorFilters): MonitorSeries {
  const agent = filters.agent;
  if (metric === "label_share" && filters.score !== undefined && filters.label !== undefined) {
    return {
      agent,
      facet: { kind: "score", score: filters.score },
      labelFacet: { kind: "label", score: filters.score, label: filters.label },
    };
  }
  if (filters.tool !== undefined) return { agent, facet: { kind: "tool", tool: filters.tool } };
  if (filters.score !== undefined) return { agent, facet: { kind: "score", score: filters.score } };
  if (filters.model !== undefined) return { agent, facet: { kind: "model", model: filters.model } };
  if (filters.user !== undefined) return { agent, facet: { kind: "user", user: filters.user } };
  return { agent, facet: { kind: "none" } };
}

/** A monitor's figure over a window (null: nothing to compute it from) and the samples it rests on. */
export interface MonitorReading {
  readonly figure: number | null;
  readonly samples: number;
}

/** Rates and means to 6 significant digits: stable to compare and short to read. */
function rounded(value: number): number {
  return Number(value.toPrecision(6));
}

function percent(part: number, whole: number): number | null {
  return whole > 0 ? rounded((100 * part) / whole) : null;
}

const PERCENTILES = { duration_p50: 0.5, duration_p95: 0.95, duration_p99: 0.99 } as const;

/**
 * The figure and samples of `metric` from the window's totals (`label` for `label_share`: the label's totals,
 * whose `labelCount` is the share's numerator over the score's `scoreCount`).
 */
export function monitorReading(
  metric: MonitorMetric,
  filters: MonitorFilters,
  totals: SeriesTotals,
  label?: SeriesTotals,
): MonitorReading {
  switch (metric) {
    case "failure_rate":
      return { figure: percent(totals.failed, totals.ended), samples: totals.ended };
    case "failed_sessions":
      return { figure: totals.failed, samples: totals.ended };
    case "error_events":
      return { figure: totals.errors, samples: totals.ended };
    case "sessions_started":
      return { figure: totals.started, samples: totals.started };
    case "cost":
      return { figure: rounded(totals.cost), samples: filters.model === undefined ? totals.ended : totals.calls };
    case "tokens":
      return { figure: totals.tokens, samples: filters.model === undefined ? totals.ended : totals.calls };
    case "duration_p50":
    case "duration_p95":
    case "duration_p99":
      return { figure: percentileFromBins(totals.durationBins, PERCENTILES[metric]), samples: totals.ended };
    case "tool_failure_rate":
      return { figure: percent(totals.callErrors, totals.calls), samples: totals.calls };
    case "score_mean":
      return {
        figure: totals.scoreCount > 0 ? rounded(totals.scoreSum / totals.scoreCount) : null,
        samples: totals.scoreCount,
      };
    case "label_share":
      return { figure: percent(label?.labelCount ?? 0, totals.scoreCount), samples: totals.scoreCount };
  }
}

/** Totals with every counter 0 (a window nothing was counted in). */
export const EMPTY_TOTALS: SeriesTotals = emptySeriesTotals();

/** The sum of several totals (hourly points into a preview's window). */
export function sumTotals(parts: Iterable<SeriesTotals>): SeriesTotals {
  const sum: Record<SeriesCounter, number> = { ...emptySeriesTotals() };
  const durationBins = new Map<number, number>();
  for (const part of parts) {
    for (const counter of SERIES_COUNTERS) sum[counter] += part[counter];
    for (const [bin, count] of part.durationBins) durationBins.set(bin, (durationBins.get(bin) ?? 0) + count);
  }
  return { ...sum, durationBins };
}
