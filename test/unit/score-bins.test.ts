import { describe, expect, it } from "vitest";
import {
  mergeScoreBins,
  SCORE_RELATIVE_ACCURACY,
  scoreBin,
  scoreBinAttribute,
  scoreBinOf,
  scorePercentile,
} from "../../functions/domain/score-bins.js";

/** The exact nearest-rank percentile. */
function exactPercentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(fraction * sorted.length)) - 1] as number;
}

function binsOf(values: readonly number[]): Map<number, number> {
  const bins = new Map<number, number>();
  for (const value of values) bins.set(scoreBin(value), (bins.get(scoreBin(value)) ?? 0) + 1);
  return bins;
}

describe("score bins", () => {
  it("bin 0 holds 0, positive values positive bins, negative values the mirrored negative bins", () => {
    expect(scoreBin(0)).toBe(0);
    expect(scoreBin(1e-9)).toBe(1);
    expect(scoreBin(0.5)).toBeGreaterThan(0);
    expect(scoreBin(-0.5)).toBe(-scoreBin(0.5));
    expect(scoreBin(1e15)).toBeLessThan(1500);
  });

  it("names bins with our own attributes and reads them back; other names are no bin's", () => {
    for (const bin of [0, 1, 17, -17, 1409, -1409]) expect(scoreBinOf(scoreBinAttribute(bin))).toBe(bin);
    expect(scoreBinAttribute(-3)).toBe("n3");
    expect(scoreBinAttribute(0)).toBe("z");
    for (const name of ["count", "p0", "n0", "p01", "l_abc", "__proto__", "p", "zz"]) {
      expect(scoreBinOf(name)).toBeUndefined();
    }
  });

  it("reads percentiles within 2 % of the exact ones for negative, fractional and mixed values", () => {
    const sets = [
      Array.from({ length: 1000 }, (_, index) => (index % 101) / 100),
      Array.from({ length: 500 }, (_, index) => -3.7 + index * 0.013),
      Array.from({ length: 300 }, (_, index) => (index % 2 === 0 ? -1 : 1) * 10 ** ((index % 24) - 9)),
    ];
    for (const values of sets) {
      const bins = binsOf(values);
      for (const fraction of [0.01, 0.5, 0.9, 0.99, 1]) {
        const exact = exactPercentile(values, fraction);
        const read = scorePercentile(bins, fraction) as number;
        if (exact === 0) expect(read).toBe(0);
        else expect(Math.abs(read - exact) / Math.abs(exact)).toBeLessThanOrEqual(SCORE_RELATIVE_ACCURACY + 1e-3);
      }
    }
  });

  it("merges histograms by summing, and an empty one has no percentile", () => {
    const merged = mergeScoreBins([binsOf([1, 2]), binsOf([2, -1])]);
    expect(merged.get(scoreBin(2))).toBe(2);
    expect(merged.get(scoreBin(-1))).toBe(1);
    expect(scorePercentile(new Map(), 0.5)).toBeNull();
  });
});
