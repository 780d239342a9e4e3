/** What a monitor measures (domain/monitor-figure.ts): its series, and each metric's figure and samples. */
import { describe, expect, it } from "vitest";
import type { SeriesTotals } from "../../functions/domain/alert-series.js";
import { durationBin, percentileFromBins } from "../../functions/domain/duration-bins.js";
import { EMPTY_TOTALS, monitorReading, monitorSeries, sumTotals } from "../../functions/domain/monitor-figure.js";

const durations = [100, 200, 300, 400, 500, 600, 700, 800, 900, 10_000];
const bins = new Map<number, number>();
for (const ms of durations) bins.set(durationBin(ms), (bins.get(durationBin(ms)) ?? 0) + 1);

const totals: SeriesTotals = {
  started: 12,
  ended: 10,
  failed: 3,
  errors: 7,
  cost: 1.234_567_89,
  tokens: 5000,
  calls: 8,
  callErrors: 2,
  scoreCount: 4,
  scoreSum: 3,
  labelCount: 1,
  durationBins: bins,
};

describe("monitorReading", () => {
  it.each([
    ["failure_rate", {}, 30, 10],
    ["failed_sessions", {}, 3, 10],
    ["error_events", {}, 7, 10],
    ["sessions_started", {}, 12, 12],
    ["cost", {}, 1.23457, 10],
    ["cost", { model: "m" }, 1.23457, 8],
    ["tokens", {}, 5000, 10],
    ["tokens", { model: "m" }, 5000, 8],
    ["tool_failure_rate", { tool: "t" }, 25, 8],
    ["score_mean", { score: "s" }, 0.75, 4],
  ] as const)("%s %j", (metric, filters, figure, samples) => {
    expect(monitorReading(metric, filters, totals)).toEqual({ figure, samples });
  });

  it("reads duration percentiles from the fine bins as the daily stats do", () => {
    expect(monitorReading("duration_p50", {}, totals)).toEqual({ figure: percentileFromBins(bins, 0.5), samples: 10 });
    expect(monitorReading("duration_p95", {}, totals).figure).toBeCloseTo(10_000, -3);
    expect(monitorReading("duration_p99", {}, totals).figure).toBe(percentileFromBins(bins, 0.99));
    expect(Math.abs((monitorReading("duration_p50", {}, totals).figure ?? 0) - 500) / 500).toBeLessThan(0.02);
  });

  it("shares a label over its score's count", () => {
    const label = { ...EMPTY_TOTALS, labelCount: 1 };
    expect(monitorReading("label_share", { score: "s", label: "l" }, totals, label)).toEqual({
      figure: 25,
      samples: 4,
    });
    expect(monitorReading("label_share", { score: "s", label: "l" }, totals)).toEqual({ figure: 0, samples: 4 });
  });

  it("has no figure for a rate, mean or percentile of nothing", () => {
    for (const metric of ["failure_rate", "tool_failure_rate", "score_mean", "label_share", "duration_p95"] as const) {
      expect(monitorReading(metric, {}, EMPTY_TOTALS)).toEqual({ figure: null, samples: 0 });
    }
    expect(monitorReading("failed_sessions", {}, EMPTY_TOTALS)).toEqual({ figure: 0, samples: 0 });
  });
});

describe("monitorSeries", () => {
  it("reads the facet of its filters, in the caller's agent", () => {
    expect(monitorSeries("failure_rate", { agent: "a" })).toEqual({ agent: "a", facet: { kind: "none" } });
    expect(monitorSeries("failure_rate", { user: "u" })).toEqual({
      agent: undefined,
      facet: { kind: "user", user: "u" },
    });
    expect(monitorSeries("cost", { model: "m" }).facet).toEqual({ kind: "model", model: "m" });
    expect(monitorSeries("tool_failure_rate", { tool: "t" }).facet).toEqual({ kind: "tool", tool: "t" });
    expect(monitorSeries("score_mean", { score: "s" }).facet).toEqual({ kind: "score", score: "s" });
    expect(monitorSeries("label_share", { score: "s", label: "l#1" })).toEqual({
      agent: undefined,
      facet: { kind: "score", score: "s" },
      labelFacet: { kind: "label", score: "s", label: "l#1" },
    });
  });
});

describe("sumTotals", () => {
  it("adds every counter and merges the duration bins", () => {
    const sum = sumTotals([totals, totals, EMPTY_TOTALS]);
    expect(sum).toMatchObject({ started: 24, ended: 20, failed: 6, calls: 16, scoreSum: 6, labelCount: 2 });
    expect(sum.durationBins.get(durationBin(100))).toBe(2);
    expect(EMPTY_TOTALS.durationBins.size).toBe(0);
  });
});
