/**
 * Session durations as a sparse, mergeable histogram of log-spaced bins: fine enough that a percentile read
 * from it is within DURATION_RELATIVE_ACCURACY of the exact nearest-rank percentile, for any distribution.
 * Pure.
 *
 * Bin 0 holds the durations under 1 ms (read as 0); bin i ≥ 1 holds [g^(i-1), g^i) ms with g =
 * DURATION_BIN_GROWTH, and reads as 2·g^i/(g+1), the point whose relative distance to both ends of the bin is
 * (g-1)/(g+1). Only occupied bins are stored (one counter each, `b<i>`), so a day of sessions costs as many
 * counters as the distinct bins its durations fall in; counts of the same bin add up across days, agents and
 * users (the histogram is merged by summing).
 */

/** Ratio of a bin's upper bound to its lower bound (see docs/decisions.md for why 4 %). */
export const DURATION_BIN_GROWTH = 1.04;

/** Largest relative error of a percentile read from the bins, for durations of 1 ms and more. */
export const DURATION_RELATIVE_ACCURACY = (DURATION_BIN_GROWTH - 1) / (DURATION_BIN_GROWTH + 1);

/** Occupied bins: bin index → count. */
export type DurationBins = ReadonlyMap<number, number>;

/** The bin holding `durationMs` (0 for durations under 1 ms). */
export function durationBin(durationMs: number, growth = DURATION_BIN_GROWTH): number {
  if (!(durationMs >= 1)) return 0;
  return Math.floor(Math.log(durationMs) / Math.log(growth)) + 1;
}

/** The duration (ms) a bin reads as: 0 for bin 0, else the point of least relative error in the bin. */
export function durationBinValue(bin: number, growth = DURATION_BIN_GROWTH): number {
  if (bin <= 0) return 0;
  return (2 * growth ** bin) / (growth + 1);
}

const BIN_ATTRIBUTE = /^b(0|[1-9]\d{0,4})$/;

/** The rollup counter of a bin: `b<index>`. */
export function durationBinAttribute(bin: number): `b${number}` {
  return `b${bin}`;
}

/** The bin a rollup counter counts, or undefined when the name is no bin's. */
export function durationBinOf(attribute: string): number | undefined {
  const match = BIN_ATTRIBUTE.exec(attribute);
  return match === null ? undefined : Number(match[1]);
}

/** The sum of several histograms. */
export function mergeDurationBins(histograms: Iterable<DurationBins>): Map<number, number> {
  const merged = new Map<number, number>();
  for (const bins of histograms) {
    for (const [bin, count] of bins) merged.set(bin, (merged.get(bin) ?? 0) + count);
  }
  return merged;
}

/** How many durations the histogram counts (bins below zero, which no complete histogram has, count as 0). */
export function durationBinsTotal(bins: DurationBins): number {
  let total = 0;
  for (const count of bins.values()) total += Math.max(0, count);
  return total;
}

/** Four significant digits: well inside the bins' accuracy, and short to read. */
function significant(value: number): number {
  return Number(value.toPrecision(4));
}

/**
 * The nearest-rank percentile (`fraction` of 0…1) of the durations counted, as its bin reads; null when the
 * histogram is empty. The exact percentile lies in the bin returned, so the answer is within
 * DURATION_RELATIVE_ACCURACY of it (for durations of 1 ms and more).
 */
export function percentileFromBins(bins: DurationBins, fraction: number, growth = DURATION_BIN_GROWTH): number | null {
  const total = durationBinsTotal(bins);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let cumulative = 0;
  for (const bin of [...bins.keys()].sort((a, b) => a - b)) {
    cumulative += Math.max(0, bins.get(bin) ?? 0);
    if (cumulative >= rank) return significant(durationBinValue(bin, growth));
  }
  return null;
}
