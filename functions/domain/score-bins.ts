/**
 * Numeric score values as a sparse, mergeable histogram of sign + log-spaced bins (issue 33), the way
 * duration-bins.ts bins durations but for values that may be negative or fractional. Pure.
 *
 * A value's magnitude is 0 or within [1e-9, 1e15] (LIMITS.smallestNonZero, LIMITS.maxScoreMagnitude). Bin 0 holds
 * 0; bin i ≥ 1 holds the positive values in [SCORE_BIN_FLOOR·g^(i−1), SCORE_BIN_FLOOR·g^i) with g = 1.04, and bin −i
 * the negative values of the same magnitudes (at most ±1,410 bins). A bin reads as the point of least relative
 * error in it, so a percentile read from the bins is within SCORE_RELATIVE_ACCURACY (2 %) of the exact
 * nearest-rank percentile; 0 reads exactly. Counters are stored as `z` (bin 0), `p<i>` and `n<i>`: only the
 * occupied bins exist, so a day of scores costs as many counters as distinct bins its values fall in (a score
 * on a 0–1 or 1–10 scale: at most ~60 bins per decade used).
 */

/** Ratio of a bin's upper bound to its lower bound, as for durations. */
export const SCORE_BIN_GROWTH = 1.04;

/** The smallest non-zero magnitude a score may have (LIMITS.smallestNonZero): bin 1 starts there. */
export const SCORE_BIN_FLOOR = 1e-9;

/** Largest relative error of a percentile read from the bins (for non-zero values). */
export const SCORE_RELATIVE_ACCURACY = (SCORE_BIN_GROWTH - 1) / (SCORE_BIN_GROWTH + 1);

/** Occupied bins: signed bin index → count. */
export type ScoreBins = ReadonlyMap<number, number>;

/** The signed bin holding `value` (0 for 0, and for a magnitude under the floor, which validation refuses). */
export function scoreBin(value: number): number {
  const magnitude = Math.abs(value);
  if (!(magnitude >= SCORE_BIN_FLOOR) || !Number.isFinite(magnitude)) return 0;
  const index = Math.floor(Math.log(magnitude / SCORE_BIN_FLOOR) / Math.log(SCORE_BIN_GROWTH)) + 1;
  return value < 0 ? -index : index;
}

/** The value a bin reads as: 0 for bin 0, else the point of least relative error of its range, signed. */
export function scoreBinValue(bin: number): number {
  if (bin === 0) return 0;
  const index = Math.abs(bin);
  const magnitude = (2 * SCORE_BIN_FLOOR * SCORE_BIN_GROWTH ** index) / (SCORE_BIN_GROWTH + 1);
  return bin < 0 ? -magnitude : magnitude;
}

const BIN_ATTRIBUTE = /^(?:z|([pn])([1-9]\d{0,4}))$/;

/** The rollup counter of a bin: `z`, `p<i>` or `n<i>` (ours, never client text). */
export function scoreBinAttribute(bin: number): string {
  if (bin === 0) return "z";
  return bin > 0 ? `p${bin}` : `n${-bin}`;
}

/** The bin a rollup counter counts, or undefined when the name is no bin's. */
export function scoreBinOf(attribute: string): number | undefined {
  const match = BIN_ATTRIBUTE.exec(attribute);
  if (match === null) return undefined;
  if (match[1] === undefined) return 0;
  const index = Number(match[2]);
  return match[1] === "p" ? index : -index;
}

/** The sum of several histograms. */
export function mergeScoreBins(histograms: Iterable<ScoreBins>): Map<number, number> {
  const merged = new Map<number, number>();
  for (const bins of histograms) {
    for (const [bin, count] of bins) merged.set(bin, (merged.get(bin) ?? 0) + count);
  }
  return merged;
}

/** Four significant digits: well inside the bins' accuracy. */
function significant(value: number): number {
  return Number(value.toPrecision(4));
}

/**
 * The nearest-rank percentile (`fraction` of 0…1) of the values counted, as its bin reads; null when the
 * histogram is empty. The exact percentile lies in the bin returned (bins are ordered by value: negative bins of
 * larger magnitude first), so the answer is within SCORE_RELATIVE_ACCURACY of it.
 */
export function scorePercentile(bins: ScoreBins, fraction: number): number | null {
  let total = 0;
  for (const count of bins.values()) total += Math.max(0, count);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let cumulative = 0;
  for (const bin of [...bins.keys()].sort((a, b) => a - b)) {
    cumulative += Math.max(0, bins.get(bin) ?? 0);
    if (cumulative >= rank) return significant(scoreBinValue(bin));
  }
  return null;
}
