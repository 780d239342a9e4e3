import { describe, expect, it } from "vitest";
import { durationBin, durationBinAttribute } from "../../functions/domain/duration-bins.js";
import {
  assembleModels,
  assembleStats,
  BUCKET_COUNT,
  bucketAttribute,
  type DayRow,
  DURATION_BUCKETS_MS,
  durationBucket,
  emptyModelTally,
  type ModelRow,
  outcomeCounters,
  percentileFromHistogram,
  UNNAMED_MODEL,
} from "../../functions/domain/rollup.js";

function day(overrides: Partial<DayRow> & { day: string }): DayRow {
  return {
    sessions: 0,
    completed: 0,
    failed: 0,
    succeeded: 0,
    reportedCost: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    durationCount: 0,
    durationSum: 0,
    events: 0,
    eventCost: 0,
    histogram: Array.from({ length: BUCKET_COUNT }, () => 0),
    durationBins: new Map(),
    ...overrides,
  };
}

describe("duration histogram", () => {
  it("puts a duration in the first bucket whose upper bound holds it; beyond the last bound, the open bucket", () => {
    expect(durationBucket(0)).toBe(0);
    expect(durationBucket(100)).toBe(0);
    expect(durationBucket(101)).toBe(1);
    expect(durationBucket(3_600_000)).toBe(DURATION_BUCKETS_MS.length - 1);
    expect(durationBucket(3_600_001)).toBe(DURATION_BUCKETS_MS.length);
    expect(bucketAttribute(3)).toBe("h03");
  });

  it("estimates percentiles as the upper bound of the bucket holding them", () => {
    const histogram = Array.from({ length: BUCKET_COUNT }, () => 0);
    histogram[1] = 50; // ≤ 250 ms
    histogram[5] = 45; // ≤ 5 s
    histogram[9] = 5; // ≤ 2 min
    expect(percentileFromHistogram(histogram, 0.5)).toBe(250);
    expect(percentileFromHistogram(histogram, 0.51)).toBe(5_000);
    expect(percentileFromHistogram(histogram, 0.95)).toBe(5_000);
    expect(percentileFromHistogram(histogram, 0.96)).toBe(120_000);
    expect(
      percentileFromHistogram(
        histogram.map(() => 0),
        0.5,
      ),
    ).toBeNull();
  });
});

describe("outcomeCounters", () => {
  it("counts an ended session's outcome, and negates it to take it back out", () => {
    const outcome = {
      status: "failed" as const,
      success: false,
      estimatedCost: 1.5,
      promptTokens: 10,
      totalTokens: 12,
      durationMs: 700,
      eventCount: 4,
      eventCost: 0.75,
    };
    expect(outcomeCounters(outcome)).toEqual({
      completed: 0,
      failed: 1,
      succeeded: 0,
      reportedCost: 1.5,
      promptTokens: 10,
      completionTokens: 0,
      totalTokens: 12,
      events: 4,
      eventCost: 0.75,
      durationCount: 1,
      durationSum: 700,
      h03: 1,
      [durationBinAttribute(durationBin(700))]: 1,
    });
    expect(outcomeCounters(outcome, -1)).toMatchObject({
      failed: -1,
      reportedCost: -1.5,
      events: -4,
      h03: -1,
      [durationBinAttribute(durationBin(700))]: -1,
    });
  });
});

describe("assembleStats", () => {
  it("sums days into totals, with success rate over ended sessions and ranked tools and failures", () => {
    const histogram = Array.from({ length: BUCKET_COUNT }, () => 0);
    histogram[2] = 1;
    const stats = assembleStats(
      [
        day({
          day: "2026-11-20",
          sessions: 3,
          completed: 2,
          failed: 1,
          succeeded: 2,
          events: 5,
          durationCount: 1,
          durationSum: 400,
          histogram,
          durationBins: new Map([[durationBin(400), 1]]),
        }),
        day({ day: "2026-11-21", sessions: 1, failed: 1, eventCost: 0.5 }),
      ],
      [
        { day: "2026-11-20", toolName: "search", calls: 3, errors: 0 },
        { day: "2026-11-21", toolName: "search", calls: 1, errors: 1 },
        { day: "2026-11-21", toolName: "email", calls: 5, errors: 2 },
      ],
      [
        { day: "2026-11-20", reason: "timeout", count: 1 },
        { day: "2026-11-21", reason: "abandoned", count: 1 },
        { day: "2026-11-21", reason: "gone", count: 0 },
      ],
    );
    expect(stats.totals).toMatchObject({
      sessions: 4,
      completed: 2,
      failed: 2,
      successRate: 0.5,
      events: 5,
      eventCost: 0.5,
    });
    expect(stats.totals.durationMs).toMatchObject({ mean: 400, precision: "fine" });
    expect(stats.totals.durationMs.p99).toBe(stats.totals.durationMs.p50);
    expect(Math.abs((stats.totals.durationMs.p50 ?? 0) / 400 - 1)).toBeLessThan(0.02);
    expect(stats.days.map((entry) => [entry.day, entry.successRate])).toEqual([
      ["2026-11-20", 0.666666667],
      ["2026-11-21", 0],
    ]);
    expect(stats.topToolsByCalls).toEqual([
      { toolName: "email", calls: 5 },
      { toolName: "search", calls: 4 },
    ]);
    expect(stats.topToolsByErrors).toEqual([
      { toolName: "email", errors: 2 },
      { toolName: "search", errors: 1 },
    ]);
    expect(stats.topFailureReasons).toEqual([
      { reason: "abandoned", count: 1 },
      { reason: "timeout", count: 1 },
    ]);
  });
});

describe("duration percentiles of days counted before and after the fine bins", () => {
  /** A day of `durations` as the rollups count them today: durationCount, coarse buckets and fine bins. */
  function countedDay(dayName: string, durations: readonly number[], fine = true): DayRow {
    const histogram = Array.from({ length: BUCKET_COUNT }, () => 0);
    const bins = new Map<number, number>();
    for (const duration of durations) {
      histogram[durationBucket(duration)] = (histogram[durationBucket(duration)] ?? 0) + 1;
      if (fine) bins.set(durationBin(duration), (bins.get(durationBin(duration)) ?? 0) + 1);
    }
    return day({
      day: dayName,
      completed: durations.length,
      durationCount: durations.length,
      durationSum: durations.reduce((sum, duration) => sum + duration, 0),
      histogram,
      durationBins: bins,
    });
  }

  const durations = Array.from({ length: 100 }, (_, index) => 1000 + 100 * index); // 1.0 s … 10.9 s

  it("reads a period counted in fine bins within 2 % of the exact percentiles", () => {
    // Act
    const stats = assembleStats([countedDay("2026-11-20", durations)], [], []);

    // Assess: exact nearest-rank p50 = 5.9 s, p95 = 10.4 s, p99 = 10.8 s
    const { p50, p95, p99, precision } = stats.totals.durationMs;
    expect(precision).toBe("fine");
    expect(Math.abs((p50 ?? 0) / 5900 - 1)).toBeLessThan(0.02);
    expect(Math.abs((p95 ?? 0) / 10_400 - 1)).toBeLessThan(0.02);
    expect(Math.abs((p99 ?? 0) / 10_800 - 1)).toBeLessThan(0.02);
  });

  it("answers a day counted before the fine bins from its coarse buckets, and a period that holds one too", () => {
    // Prepare: an old day (coarse buckets only) and a new day.
    const old = countedDay("2026-11-19", durations, false);
    const fresh = countedDay("2026-11-20", durations);

    // Act
    const stats = assembleStats([old, fresh], [], []);

    // Assess: the old day and the totals as the coarse buckets' upper bounds, marked; the new day fine.
    expect(stats.days.map((entry) => [entry.day, entry.durationMs.precision])).toEqual([
      ["2026-11-19", "coarse"],
      ["2026-11-20", "fine"],
    ]);
    expect(stats.days[0]?.durationMs).toEqual({
      p50: 10_000,
      p95: 30_000,
      p99: 30_000,
      mean: 5950,
      precision: "coarse",
    });
    expect(stats.totals.durationMs).toEqual({ p50: 10_000, p95: 30_000, p99: 30_000, mean: 5950, precision: "coarse" });
    expect(stats.days[1]?.durationMs.p50).toBeCloseTo(5900, -2);
  });

  it("keeps an old day coarse once one of its old sessions is withdrawn (deleted or moved) from both", () => {
    // Prepare: an old day of two sessions, one of them deleted since (its withdrawal takes it out of the coarse
    // bucket, durationCount and, as for any session, the fine bin: -1 where nothing was counted).
    const old = countedDay("2026-11-19", [2000, 45_000], false);
    const withdrawn = durationBin(45_000);
    const after = {
      ...old,
      durationCount: 1,
      durationSum: 2000,
      histogram: old.histogram.map((count, index) => (index === durationBucket(45_000) ? count - 1 : count)),
      durationBins: new Map([[withdrawn, -1]]),
    };

    // Act
    const stats = assembleStats([after], [], []);

    // Assess: 0 binned of 1 counted: still coarse, and the remaining session reads as its bucket (≤ 2.5 s).
    expect(stats.totals.durationMs).toEqual({ p50: 2500, p95: 2500, p99: 2500, mean: 2000, precision: "coarse" });
  });
});

describe("assembleModels", () => {
  const row = (day: string, model: string, overrides: Partial<ModelRow> = {}): ModelRow => ({
    ...emptyModelTally(),
    day,
    model,
    calls: 1,
    ...overrides,
  });

  it("sums each model over the days, the most costly first, calls without a model last, withdrawn models left out", () => {
    const { models, totals } = assembleModels([
      row("2024-05-01", "cheap", { estimatedCost: 0.1, promptTokens: 10 }),
      row("2024-05-02", "cheap", { estimatedCost: 0.1, promptTokens: 5, unpricedCalls: 1 }),
      row("2024-05-01", "dear", { estimatedCost: 3 }),
      row("2024-05-01", UNNAMED_MODEL, { estimatedCost: 9 }),
      row("2024-05-01", "gone", { calls: 0 }),
      row("2024-05-01", "b-free", { calls: 2 }),
      row("2024-05-01", "a-free", { calls: 2 }),
    ]);

    expect(models.map((line) => line.model)).toEqual(["dear", "cheap", "a-free", "b-free", null]);
    expect(models[1]).toEqual({
      ...emptyModelTally(),
      model: "cheap",
      calls: 2,
      estimatedCost: 0.2,
      promptTokens: 15,
      unpricedCalls: 1,
    });
    expect(totals).toMatchObject({ calls: 8, estimatedCost: 12.2, promptTokens: 15, unpricedCalls: 1 });
  });

  it("has no line for calls without a model when there are none", () => {
    expect(assembleModels([row("2024-05-01", "m")]).models.map((line) => line.model)).toEqual(["m"]);
    expect(assembleModels([])).toEqual({ models: [], totals: emptyModelTally() });
  });
});
