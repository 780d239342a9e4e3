/**
 * A conversation's score totals (issue 33): per score name, over the scores read (the conversation's own and its
 * runs'), the figures AgentStats shows for a name — count, numeric mean and percentiles, boolean true share, count
 * per label — computed with the same rules (score-stats.ts), labels capped as the rollups cap them (the 20 most
 * counted, the rest as `(other)`). Pure.
 */

import type { ScoreValue } from "./score.js";
import { scoreBin } from "./score-bins.js";
import { assembleScoreStats, type ScoreFigures, type ScoreRow } from "./score-stats.js";
import { MAX_SCORE_LABELS_PER_DAY, OTHER_LABEL } from "./score-tally.js";

/** A score as the totals need it: its name and value. */
export interface NamedValue {
  readonly name: string;
  readonly value: ScoreValue;
}

export type ScoreTotal = ScoreFigures & { readonly name: string };

interface Tally {
  count: number;
  numericCount: number;
  sum: number;
  trueCount: number;
  falseCount: number;
  bins: Map<number, number>;
  labels: Map<string, number>;
}

/** The most counted labels kept (ties by label), the others' counts folded into `(other)`. */
function cappedLabels(labels: ReadonlyMap<string, number>): Map<string, number> {
  const ordered = [...labels].sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0));
  const kept = new Map(ordered.slice(0, MAX_SCORE_LABELS_PER_DAY));
  for (const [, count] of ordered.slice(MAX_SCORE_LABELS_PER_DAY)) {
    kept.set(OTHER_LABEL, (kept.get(OTHER_LABEL) ?? 0) + count);
  }
  return kept;
}

/**
 * Per score name (the most counted first, at most 50 as AgentStats shows), the figures of `scores`; `truncated` when
 * names were left out.
 */
export function scoreTotalsOf(values: readonly NamedValue[]): { totals: ScoreTotal[]; truncated: boolean } {
  const tallies = new Map<string, Tally>();
  for (const { name, value } of values) {
    const tally = tallies.get(name) ?? {
      count: 0,
      numericCount: 0,
      sum: 0,
      trueCount: 0,
      falseCount: 0,
      bins: new Map<number, number>(),
      labels: new Map<string, number>(),
    };
    tallies.set(name, tally);
    tally.count += 1;
    if (typeof value === "number") {
      tally.numericCount += 1;
      tally.sum += value;
      const bin = scoreBin(value);
      tally.bins.set(bin, (tally.bins.get(bin) ?? 0) + 1);
    } else if (typeof value === "boolean") {
      if (value) tally.trueCount += 1;
      else tally.falseCount += 1;
    } else tally.labels.set(value, (tally.labels.get(value) ?? 0) + 1);
  }
  const rows: ScoreRow[] = [...tallies].map(([name, tally]) => ({
    day: "",
    name,
    ...tally,
    labels: cappedLabels(tally.labels),
  }));
  const { scores, scoresTruncated } = assembleScoreStats(rows);
  return { totals: scores.map(({ days: _days, ...figures }) => figures), truncated: scoresTruncated };
}
