import { describe, expect, it } from "vitest";
import {
  assembleStats,
  BUCKET_COUNT,
  bucketAttribute,
  type DayRow,
  DURATION_BUCKETS_MS,
  durationBucket,
  outcomeCounters,
  percentileFromHistogram,
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
    });
    expect(outcomeCounters(outcome, -1)).toMatchObject({ failed: -1, reportedCost: -1.5, events: -4, h03: -1 });
  });
});

describe("assembleStats", () => {
  it("sums days into totals, with success rate over ended sessions and ranked tools and failures", () => {
    const histogram = Array.from({ length: BUCKET_COUNT }, () => 0);
    histogram[2] = 1;
    const stats = assembleStats(
      [
        day({ day: "2026-11-20", sessions: 3, completed: 2, failed: 1, succeeded: 2, events: 5, histogram }),
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
    expect(stats.totals.durationMs).toEqual({ p50: 500, p95: 500, mean: null });
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
