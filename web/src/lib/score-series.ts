/**
 * An agent's score figures (AgentStats' `scores`) shaped for its charts: one chart per score name, every day of the
 * period a point (the API sends only the days with scores). Pure.
 */
import type { AgentStats } from "../api/types";

export type ScoreNameStats = AgentStats["scores"][number];
type ScoreFigures = Omit<ScoreNameStats, "name" | "days">;

/** How a name's chart reads: a daily mean (numbers), a daily share of true (yes/no), or a daily label mix. */
export type ScoreChartKind = "numeric" | "boolean" | "categorical";

/**
 * The kind a name is charted as: the kind most of its scores have over the period (a name without a configuration
 * may hold several), numbers before yes/no before labels on a tie.
 */
export function scoreChartKind(stats: ScoreFigures): ScoreChartKind {
  const numeric = stats.numeric?.count ?? 0;
  const boolean = stats.boolean?.count ?? 0;
  const categorical = stats.labels.reduce((sum, label) => sum + label.count, 0);
  if (numeric >= boolean && numeric >= categorical && numeric > 0) return "numeric";
  if (boolean >= categorical && boolean > 0) return "boolean";
  return "categorical";
}

/** One day of a numeric or yes/no chart: the mean (or % true), null on a day without such scores, and its count. */
export interface ScoreMeanPoint {
  day: string;
  value: number | null;
  count: number;
}

const DAY_MS = 86_400_000;

function periodDays(from: string, to: string): string[] {
  const days: string[] = [];
  for (let time = Date.parse(from); time <= Date.parse(to); time += DAY_MS) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return days;
}

/** Numbers: the daily mean; yes/no: the daily share of true, in percent. Every day of `from`…`to`. */
export function scoreMeanSeries(
  stats: ScoreNameStats,
  kind: "numeric" | "boolean",
  from: string,
  to: string,
): ScoreMeanPoint[] {
  const byDay = new Map(stats.days.map((day) => [day.day, day]));
  return periodDays(from, to).map((day) => {
    const figures = byDay.get(day);
    if (kind === "numeric") return { day, value: figures?.numeric?.mean ?? null, count: figures?.numeric?.count ?? 0 };
    const share = figures?.boolean?.trueShare ?? null;
    return { day, value: share === null ? null : share * 100, count: figures?.boolean?.count ?? 0 };
  });
}

/** The labels given a colour of their own; the rest are summed as OTHER_LABEL. */
export const MAX_LABELS_CHARTED = 8;
/** The console's bucket for the labels past MAX_LABELS_CHARTED and the API's own "(other)" (past 20 a day). */
export const OTHER_LABEL = "Other";
/** The API's name for a day's labels past its first 20 (functions/domain/score-tally.ts). */
const API_OTHER_LABEL = "(other)";

/** One day of a label chart: the count of each charted label (keys are `label-<index>`, safe for any label text). */
export interface LabelMixPoint {
  day: string;
  total: number;
  counts: Record<string, number>;
}

export interface LabelMix {
  /** The charted labels, most counted first over the period; OTHER_LABEL last when any score falls in it. */
  labels: { label: string; key: string; total: number }[];
  points: LabelMixPoint[];
}

/**
 * The daily label mix: the period's most counted labels (at most MAX_LABELS_CHARTED, never the API's "(other)")
 * each on its own, every other label of a day summed as OTHER_LABEL.
 */
export function labelMixSeries(stats: ScoreNameStats, from: string, to: string): LabelMix {
  const charted = stats.labels
    .filter((entry) => entry.label !== API_OTHER_LABEL)
    .slice(0, MAX_LABELS_CHARTED)
    .map((entry, index) => ({ label: entry.label, key: `label-${index}`, total: 0 }));
  const keyOf = new Map(charted.map((entry) => [entry.label, entry.key]));
  const other = { label: OTHER_LABEL, key: "label-other", total: 0 };
  const totals = new Map<string, number>();
  const byDay = new Map(stats.days.map((day) => [day.day, day]));
  const points = periodDays(from, to).map((day) => {
    const counts: Record<string, number> = {};
    let total = 0;
    for (const { label, count } of byDay.get(day)?.labels ?? []) {
      const key = keyOf.get(label) ?? other.key;
      counts[key] = (counts[key] ?? 0) + count;
      totals.set(key, (totals.get(key) ?? 0) + count);
      total += count;
    }
    return { day, total, counts };
  });
  const labels = [...charted, other]
    .map((entry) => ({ ...entry, total: totals.get(entry.key) ?? 0 }))
    .filter((entry) => entry.key !== other.key || entry.total > 0);
  return { labels, points };
}
