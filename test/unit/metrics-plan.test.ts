/**
 * The metrics planner (functions/domain/metrics-plan.ts): which combinations the counted items answer and the
 * 400 (field, why, what is possible) for the others; and the rows (metrics-rows.ts): grouping, filters, the
 * measures as the stats routes assemble them, order and pages.
 */
import { describe, expect, it } from "vitest";
import { emptySeriesTotals } from "../../functions/domain/alert-series.js";
import { durationBin, percentileFromBins } from "../../functions/domain/duration-bins.js";
import { ValidationError } from "../../functions/domain/errors.js";
import { type MetricsQuery, planMetricsQuery, type RollupPlan } from "../../functions/domain/metrics-plan.js";
import {
  type PartitionRollups,
  pageOfRows,
  rollupMetricsRows,
  seriesMetricsRows,
} from "../../functions/domain/metrics-rows.js";
import {
  BUCKET_COUNT,
  type DayRow,
  emptyModelTally,
  type ModelRow,
  type ToolRow,
} from "../../functions/domain/rollup.js";
import type { ScoreRow } from "../../functions/domain/score-stats.js";

const NOW = Date.parse("2026-11-27T14:30:00Z");
const HOUR = 3_600_000;

function query(overrides: Partial<MetricsQuery> = {}): MetricsQuery {
  return { granularity: "day", measures: ["sessions"], groupBy: [], filters: {}, ...overrides };
}

/** The refusal of `overrides`: its field and message. */
function refusal(overrides: Partial<MetricsQuery>): { path: string | undefined; message: string } {
  try {
    planMetricsQuery(query(overrides), NOW);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { path: error.issues[0]?.path, message: error.message };
  }
  throw new Error("planned");
}

describe("planMetricsQuery: what the counted items answer", () => {
  it("reads the busiest agents for a tenant-wide day query, the last 30 days by default", () => {
    const plan = planMetricsQuery(query(), NOW) as RollupPlan;
    expect(plan).toMatchObject({
      kind: "rollup",
      fromDay: "2026-10-29",
      toDay: "2026-11-27",
      scope: { dimension: "AGENT", agents: undefined },
      sources: ["day"],
    });
  });

  it("reads the agents named, the users named, and a timestamp's day", () => {
    expect(
      planMetricsQuery(query({ filters: { agent: ["a", "b"] }, from: "2026-11-01T23:59:00+02:00" }), NOW),
    ).toMatchObject({ scope: { dimension: "AGENT", agents: ["a", "b"] }, fromDay: "2026-11-01" });
    expect(
      planMetricsQuery(query({ groupBy: ["user", "tool"], measures: ["toolCalls"], filters: { user: ["u"] } }), NOW),
    ).toMatchObject({ scope: { dimension: "USER", users: ["u"] }, sources: ["tool"] });
  });

  it("answers model figures per model and agent, tool figures per tool and user, scores of one name", () => {
    expect(
      planMetricsQuery(query({ measures: ["modelCalls", "modelCost"], groupBy: ["agent", "model"] }), NOW),
    ).toMatchObject({ sources: ["model"] });
    expect(
      planMetricsQuery(
        query({ measures: ["toolErrors"], groupBy: ["tool"], filters: { user: ["u"], tool: ["search"] } }),
        NOW,
      ),
    ).toMatchObject({ sources: ["tool"] });
    expect(
      planMetricsQuery(query({ measures: ["scoreMean", "sessions"], filters: { score: "quality" } }), NOW),
    ).toMatchObject({ sources: ["score", "day"] });
  });

  it("plans hours from the all-agents series, per busiest agent, or per agent named", () => {
    const hours = { granularity: "hour" as const, measures: ["sessionsStarted" as const] };
    expect(planMetricsQuery(query(hours), NOW)).toEqual({
      kind: "series",
      firstHourMs: Date.parse("2026-11-26T15:00:00Z"),
      lastHourMs: Date.parse("2026-11-27T14:00:00Z"),
      agents: "all",
      measures: ["sessionsStarted"],
      groupBy: [],
    });
    expect(planMetricsQuery(query({ ...hours, groupBy: ["agent"] }), NOW)).toMatchObject({ agents: "busiest" });
    expect(planMetricsQuery(query({ ...hours, filters: { agent: ["a"] } }), NOW)).toMatchObject({ agents: ["a"] });
    // The oldest hour still kept: 191 hours before the current one.
    const oldest = new Date(Date.parse("2026-11-27T14:00:00Z") - 191 * HOUR).toISOString();
    const tenLater = new Date(Date.parse(oldest) + 10 * HOUR).toISOString();
    expect(planMetricsQuery(query({ ...hours, from: oldest, to: tenLater }), NOW)).toMatchObject({
      firstHourMs: Date.parse(oldest),
      lastHourMs: Date.parse(tenLater),
    });
    expect(() =>
      planMetricsQuery(query({ ...hours, from: new Date(Date.parse(oldest) - HOUR).toISOString(), to: tenLater }), NOW),
    ).toThrow(ValidationError);
  });
});

describe("planMetricsQuery: a 400 naming the field, why and what is possible", () => {
  it.each([
    [
      "a day measure per model",
      { measures: ["sessions", "modelCalls"], groupBy: ["model"] },
      "measures",
      "per model only modelCalls, modelCost, modelPromptTokens, modelCompletionTokens, modelTotalTokens, modelCacheReadTokens, modelCacheWriteTokens, modelReasoningTokens, unpricedCalls are counted; sessions is not",
    ],
    [
      "a day measure filtered by tool",
      { measures: ["failed"], filters: { tool: ["search"] } },
      "measures",
      "per tool only toolCalls, toolErrors are counted; failed is not",
    ],
    [
      "agent and user together",
      { groupBy: ["agent", "user"], filters: { user: ["u"] } },
      "groupBy",
      "never per agent and user together",
    ],
    [
      "a user filter with an agent filter",
      { filters: { agent: ["a"], user: ["u"] } },
      "filters.user",
      "never per agent and user together",
    ],
    ["users not named", { groupBy: ["user"] }, "filters.user", "the rollups keep no list of a tenant's users"],
    [
      "models with tools",
      { measures: ["modelCalls"], groupBy: ["model", "tool"] },
      "groupBy",
      "models and tools are counted apart",
    ],
    [
      "model figures per user",
      { measures: ["modelCalls"], filters: { user: ["u"] } },
      "measures",
      "modelCalls is counted per agent only",
    ],
    ["a score measure without its name", { measures: ["scoreMean"] }, "filters.score", "name one in filters.score"],
    [
      "a score name without a score measure",
      { filters: { score: "q" } },
      "filters.score",
      "applies to the score measures only",
    ],
    ["an hourly measure per day", { measures: ["sessionsStarted"] }, "measures", "use granularity hour"],
    [
      "a day measure per hour",
      { granularity: "hour", measures: ["sessions", "sessionsStarted"] },
      "measures",
      "sessions is counted per day",
    ],
    [
      "hours by tool",
      { granularity: "hour", measures: ["sessionsStarted"], groupBy: ["tool"] },
      "groupBy",
      "grouped by agent only",
    ],
    [
      "hours of one user",
      { granularity: "hour", measures: ["sessionsStarted"], filters: { user: ["u"] } },
      "filters.user",
      "only filters.agent applies",
    ],
    [
      "more than 400 days",
      { from: "2025-01-01", to: "2026-11-27" },
      "from",
      "a query covers at most 400 days (this one 696)",
    ],
    ["from after to", { from: "2026-11-27", to: "2026-11-01" }, "from", "from must not be after to"],
    [
      "more than 168 hours",
      { granularity: "hour", measures: ["sessionsStarted"], from: "2026-11-20T00:00:00Z", to: "2026-11-27T12:00:00Z" },
      "from",
      "at most 168 hours (this one 181)",
    ],
    [
      "hours past the series' retention",
      { granularity: "hour", measures: ["sessionsStarted"], from: "2026-11-19T00:00:00Z", to: "2026-11-19T10:00:00Z" },
      "from",
      "from must be at or after 2026-11-19T15:00:00.000Z",
    ],
  ] as [string, Partial<MetricsQuery>, string, string][])("%s", (_, overrides, path, message) => {
    const refused = refusal(overrides);
    expect(refused.path).toBe(path);
    expect(refused.message).toContain(message);
  });
});

function dayRow(day: string, sessions: number, durations: readonly number[] = []): DayRow {
  const bins = new Map<number, number>();
  for (const duration of durations) bins.set(durationBin(duration), (bins.get(durationBin(duration)) ?? 0) + 1);
  return {
    day,
    sessions,
    completed: durations.length,
    failed: 0,
    succeeded: durations.length,
    reportedCost: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    durationCount: durations.length,
    durationSum: durations.reduce((sum, duration) => sum + duration, 0),
    events: 0,
    eventCost: 0.1 * sessions,
    histogram: Array.from({ length: BUCKET_COUNT }, () => 0),
    durationBins: bins,
  };
}

const tool = (day: string, toolName: string, calls: number, errors = 0): ToolRow => ({ day, toolName, calls, errors });
const model = (day: string, name: string, calls: number, cost: number): ModelRow => ({
  ...emptyModelTally(),
  day,
  model: name,
  calls,
  estimatedCost: cost,
});
const score = (day: string, name: string, count: number, sum: number): ScoreRow => ({
  day,
  name,
  count,
  numericCount: count,
  sum,
  trueCount: 0,
  falseCount: 0,
  bins: new Map(),
  labels: new Map(),
});

const alpha: PartitionRollups = {
  name: "alpha",
  days: [dayRow("2026-11-26", 2, [100, 300]), dayRow("2026-11-27", 1, [1000])],
  tools: [tool("2026-11-26", "search", 3, 1), tool("2026-11-27", "search", 1), tool("2026-11-27", "lookup", 2)],
  models: [model("2026-11-26", "gpt-x", 2, 0.5), model("2026-11-27", "", 1, 0.25)],
  scores: [score("2026-11-26", "quality", 2, 1.2), score("2026-11-26", "other", 5, 5)],
};
const beta: PartitionRollups = {
  name: "beta",
  days: [dayRow("2026-11-27", 4, [10_000])],
  tools: [tool("2026-11-27", "search", 5, 2)],
  models: [model("2026-11-27", "gpt-x", 1, 1)],
  scores: [],
};

function rows(overrides: Partial<MetricsQuery>, partitions = [alpha, beta]) {
  return rollupMetricsRows(
    planMetricsQuery(query({ from: "2026-11-20", to: "2026-11-27", ...overrides }), NOW) as RollupPlan,
    partitions,
  );
}

describe("rollupMetricsRows", () => {
  it("sums the agents per day, merging the days' duration bins for the percentiles", () => {
    // The percentiles of each day's durations, all agents' together, read from one histogram of them.
    const percentile = (durations: number[], fraction: number) =>
      percentileFromBins(dayRow("", 0, durations).durationBins, fraction);
    expect(rows({ measures: ["sessions", "completed", "durationP50", "durationP99", "eventCost"] })).toEqual([
      {
        time: "2026-11-26",
        sessions: 2,
        completed: 2,
        durationP50: percentile([100, 300], 0.5),
        durationP99: percentile([100, 300], 0.99),
        eventCost: 0.2,
      },
      {
        time: "2026-11-27",
        sessions: 5,
        completed: 2,
        durationP50: percentile([1000, 10_000], 0.5),
        durationP99: percentile([1000, 10_000], 0.99),
        eventCost: 0.5,
      },
    ]);
    expect(percentile([1000, 10_000], 0.99)).toBeGreaterThan(9_000);
  });

  it("groups by agent in total, each measure from its own items", () => {
    expect(
      rows({ granularity: "total", groupBy: ["agent"], measures: ["sessions", "toolCalls", "modelCalls"] }),
    ).toEqual([
      { agent: "alpha", sessions: 3, toolCalls: 6, modelCalls: 3 },
      { agent: "beta", sessions: 4, toolCalls: 5, modelCalls: 1 },
    ]);
  });

  it("groups by tool and by model (the calls without a model name last, as null), filtered", () => {
    expect(rows({ granularity: "total", groupBy: ["tool"], measures: ["toolCalls", "toolErrors"] })).toEqual([
      { tool: "lookup", toolCalls: 2, toolErrors: 0 },
      { tool: "search", toolCalls: 9, toolErrors: 3 },
    ]);
    expect(
      rows({ granularity: "total", groupBy: ["tool"], measures: ["toolCalls"], filters: { tool: ["lookup"] } }),
    ).toEqual([{ tool: "lookup", toolCalls: 2 }]);
    expect(rows({ granularity: "total", groupBy: ["model"], measures: ["modelCalls", "modelCost"] })).toEqual([
      { model: "gpt-x", modelCalls: 3, modelCost: 1.5 },
      { model: null, modelCalls: 1, modelCost: 0.25 },
    ]);
  });

  it("answers one score name's figures; a row without a rate's inputs says null", () => {
    expect(
      rows({
        granularity: "total",
        groupBy: ["agent"],
        measures: ["scoreCount", "scoreMean", "successRate"],
        filters: { score: "quality" },
      }),
    ).toEqual([
      { agent: "alpha", scoreCount: 2, scoreMean: 0.6, successRate: 1 },
      { agent: "beta", scoreCount: 0, scoreMean: null, successRate: 1 },
    ]);
  });

  it("pages the rows: each page from the offset, the next offset until the last", () => {
    const all = rows({ groupBy: ["agent"], measures: ["sessions"] });
    expect(all).toHaveLength(3);
    expect(pageOfRows(all, 0, 2)).toEqual({ rows: all.slice(0, 2), nextOffset: 2 });
    expect(pageOfRows(all, 2, 2)).toEqual({ rows: all.slice(2), nextOffset: undefined });
  });
});

describe("seriesMetricsRows", () => {
  it("sums the agents' hours, leaves out hours of nothing, and merges the ended sessions' bins", () => {
    const plan = planMetricsQuery(
      query({ granularity: "hour", measures: ["sessionsStarted", "endedDurationP50", "costAtTime"] }),
      NOW,
    );
    if (plan.kind !== "series") throw new Error("not a series plan");
    const at = (iso: string, counts: Partial<ReturnType<typeof emptySeriesTotals>>) => ({
      ...emptySeriesTotals(),
      ...counts,
      start: new Date(iso),
    });
    expect(
      seriesMetricsRows(plan, [
        {
          agent: "alpha",
          points: [
            at("2026-11-27T10:00:00Z", { started: 2, cost: 0.1, durationBins: new Map([[durationBin(100), 1]]) }),
            at("2026-11-27T11:00:00Z", {}),
          ],
        },
        { agent: "beta", points: [at("2026-11-27T10:00:00Z", { started: 1, cost: 0.2 })] },
      ]),
    ).toEqual([
      {
        time: "2026-11-27T10:00:00.000Z",
        sessionsStarted: 3,
        endedDurationP50: percentileFromBins(new Map([[durationBin(100), 1]]), 0.5),
        costAtTime: 0.3,
      },
    ]);
  });
});
