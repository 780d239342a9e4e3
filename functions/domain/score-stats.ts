/**
 * An agent's score figures over a period (AgentStats' `scores`), from its score rollup rows (one per score name and
 * day): per name the count, numeric mean and percentiles (merged bins, within SCORE_RELATIVE_ACCURACY), the true
 * share of boolean scores, the count per label, and the same per day. Pure.
 */
import { mergeScoreBins, type ScoreBins, scorePercentile } from "./score-bins.js";

/** One score name's figures on one day, as a rollup item holds them. */
export interface ScoreRow {
  readonly day: string;
  readonly name: string;
  readonly count: number;
  readonly numericCount: number;
  readonly sum: number;
  readonly trueCount: number;
  readonly falseCount: number;
  readonly bins: ScoreBins;
  readonly labels: ReadonlyMap<string, number>;
}

/** Names shown (the most counted first); the others are left out and `scoresTruncated` says so. */
export const MAX_SCORE_NAMES_SHOWN = 50;

export interface ScoreFigures {
  readonly count: number;
  readonly numeric: {
    readonly count: number;
    readonly mean: number | null;
    readonly p50: number | null;
    readonly p90: number | null;
    readonly p99: number | null;
  } | null;
  readonly boolean: { readonly count: number; readonly trueCount: number; readonly trueShare: number | null } | null;
  readonly labels: readonly { readonly label: string; readonly count: number }[];
}

export interface ScoreNameStats extends ScoreFigures {
  readonly name: string;
  readonly days: readonly (ScoreFigures & { readonly day: string })[];
}

/** Twelve significant digits: hides the binary noise of summed decimals. */
function tidy(value: number): number {
  return Number(value.toPrecision(12));
}

function figuresOf(rows: readonly ScoreRow[]): ScoreFigures {
  const total = (field: "count" | "numericCount" | "sum" | "trueCount" | "falseCount") =>
    rows.reduce((sum, row) => sum + row[field], 0);
  const numericCount = total("numericCount");
  const bins = mergeScoreBins(rows.map((row) => row.bins));
  const trueCount = total("trueCount");
  const booleanCount = trueCount + total("falseCount");
  const labels = new Map<string, number>();
  for (const row of rows) for (const [label, count] of row.labels) labels.set(label, (labels.get(label) ?? 0) + count);
  return {
    count: total("count"),
    numeric:
      numericCount === 0
        ? null
        : {
            count: numericCount,
            mean: tidy(total("sum") / numericCount),
            p50: scorePercentile(bins, 0.5),
            p90: scorePercentile(bins, 0.9),
            p99: scorePercentile(bins, 0.99),
          },
    boolean: booleanCount === 0 ? null : { count: booleanCount, trueCount, trueShare: tidy(trueCount / booleanCount) },
    labels: [...labels]
      .filter(([, count]) => count > 0)
      .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0))
      .map(([label, count]) => ({ label, count })),
  };
}

/** Per score name (the most counted first, at most MAX_SCORE_NAMES_SHOWN), its figures over the rows' days. */
export function assembleScoreStats(rows: readonly ScoreRow[]): { scores: ScoreNameStats[]; scoresTruncated: boolean } {
  const byName = new Map<string, ScoreRow[]>();
  for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  const all = [...byName]
    .map(([name, named]) => ({
      name,
      ...figuresOf(named),
      days: [...named]
        .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
        .map((row) => ({ day: row.day, ...figuresOf([row]) }))
        .filter((day) => day.count > 0),
    }))
    .filter((stats) => stats.count > 0)
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { scores: all.slice(0, MAX_SCORE_NAMES_SHOWN), scoresTruncated: all.length > MAX_SCORE_NAMES_SHOWN };
}
