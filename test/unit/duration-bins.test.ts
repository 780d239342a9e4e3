/**
 * The fine duration bins (functions/domain/duration-bins.ts): percentiles read from them against the exact
 * percentiles of random samples, across 1 ms – 1 h, whole and merged from parts (days, agents).
 */
import { describe, expect, it } from "vitest";
import {
  DURATION_RELATIVE_ACCURACY,
  type DurationBins,
  durationBin,
  durationBinAttribute,
  durationBinOf,
  durationBinValue,
  mergeDurationBins,
  percentileFromBins,
} from "../../functions/domain/duration-bins.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { DURATION_DISTRIBUTIONS, exactPercentile, sampleDurations } from "../support/duration-samples.js";

function binsOf(durations: readonly number[]): Map<number, number> {
  const bins = new Map<number, number>();
  for (const duration of durations) bins.set(durationBin(duration), (bins.get(durationBin(duration)) ?? 0) + 1);
  return bins;
}

/** The bins' answer may be off by the bins' accuracy plus the rounding to four significant digits. */
const TOLERANCE = DURATION_RELATIVE_ACCURACY + 5e-4;
const FRACTIONS = [0.5, 0.95, 0.99] as const;

function relativeError(estimate: number | null, exact: number): number {
  return estimate === null ? Number.POSITIVE_INFINITY : Math.abs(estimate - exact) / exact;
}

describe("duration bins", () => {
  it("holds under 1 ms in bin 0 (read as 0) and each duration from 1 ms in a bin whose reading is within 2 %", () => {
    expect(durationBin(0)).toBe(0);
    expect(durationBin(0.999)).toBe(0);
    expect(durationBin(Number.NaN)).toBe(0);
    expect(durationBin(1)).toBe(1);
    expect(durationBinValue(0)).toBe(0);
    expect(DURATION_RELATIVE_ACCURACY).toBeLessThan(0.02);
    for (const duration of [1, 1.5, 7, 99.9, 1000, 9_590, 30_000, 3_599_999, 3_600_000, LIMITS.maxDurationMs]) {
      expect(relativeError(durationBinValue(durationBin(duration)), duration)).toBeLessThanOrEqual(
        DURATION_RELATIVE_ACCURACY + 1e-12,
      );
    }
  });

  it("names a bin's counter b<bin> and reads back only such names", () => {
    const longest = durationBin(LIMITS.maxDurationMs);
    expect(durationBinAttribute(longest)).toBe(`b${longest}`);
    expect(durationBinOf(durationBinAttribute(longest))).toBe(longest);
    expect(durationBinOf("b0")).toBe(0);
    for (const name of ["b", "b01", "b-1", "b1.5", "h03", "durationCount", "b123456", "xb1", "__proto__"]) {
      expect(durationBinOf(name), name).toBeUndefined();
    }
  });

  it("reads null from an empty histogram and the one bin of a single duration", () => {
    expect(percentileFromBins(new Map(), 0.5)).toBeNull();
    expect(percentileFromBins(new Map([[5, 0]]), 0.5)).toBeNull();
    expect(relativeError(percentileFromBins(binsOf([9_590]), 0.99), 9_590)).toBeLessThan(TOLERANCE);
  });

  it.each(DURATION_DISTRIBUTIONS)("is within 2 % of the exact p50, p95 and p99 of random samples: $name", (shape) => {
    for (const [count, seed] of [
      [1, 1],
      [7, 2],
      [100, 3],
      [1_000, 4],
      [20_000, 5],
    ] as const) {
      const durations = sampleDurations(shape, count, seed);
      const bins = binsOf(durations);
      for (const fraction of FRACTIONS) {
        const exact = exactPercentile(durations, fraction);
        const error = relativeError(percentileFromBins(bins, fraction), exact);
        expect(error, `${shape.name}, n=${count}, p${fraction * 100}: exact ${exact}`).toBeLessThanOrEqual(TOLERANCE);
      }
    }
  });

  it("merged from days (and agents) answers as the whole period's durations do", () => {
    // Prepare: 30 days of different shapes.
    const days = DURATION_DISTRIBUTIONS.flatMap((shape, index) =>
      [0, 1, 2, 3].map((part) => sampleDurations(shape, 50 + 37 * part, 100 + 4 * index + part)),
    );

    // Act
    const merged: DurationBins = mergeDurationBins(days.map(binsOf));

    // Assess: the same bins as counting the whole period at once, and within 2 % of its exact percentiles.
    const whole = days.flat();
    expect(new Map([...merged].sort((a, b) => a[0] - b[0]))).toEqual(
      new Map([...binsOf(whole)].sort((a, b) => a[0] - b[0])),
    );
    for (const fraction of FRACTIONS) {
      expect(relativeError(percentileFromBins(merged, fraction), exactPercentile(whole, fraction))).toBeLessThanOrEqual(
        TOLERANCE,
      );
    }
  });

  it("counts a withdrawn duration out: adding then withdrawing leaves the answer of the rest", () => {
    const kept = [120, 4_000, 4_100, 61_000];
    const bins = mergeDurationBins([binsOf([...kept, 900_000]), new Map([[durationBin(900_000), -1]])]);
    expect(percentileFromBins(bins, 0.99)).toBe(percentileFromBins(binsOf(kept), 0.99));
  });
});
