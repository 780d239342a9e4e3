/** The monitor definition's request schema: each field's bounds and the rules across fields (domain/monitor-rules.ts). */
import { describe, expect, it } from "vitest";
import { monitorDefinitionBody } from "../../functions/schemas/monitor-schemas.js";

const valid = {
  name: "Support agent failing",
  enabled: true,
  metric: "failure_rate",
  filters: { agent: "support" },
  windowMinutes: 15,
  comparison: "above",
  warningThreshold: 5,
  alertThreshold: 10,
  minSessions: 10,
  noData: "keep",
  renotifyMinutes: 60,
  notifyOnRecovery: true,
  destinationIds: ["dst_01JD0000000000000000000000"],
};

/** The issues of a definition: path → message. */
function issuesOf(changes: Record<string, unknown>): Record<string, string> {
  const result = monitorDefinitionBody.safeParse({ ...valid, ...changes });
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]));
}

describe("monitorDefinitionBody", () => {
  it("accepts a whole definition, and null optional fields as absent", () => {
    const parsed = monitorDefinitionBody.parse({ ...valid, description: null, warningThreshold: null });
    expect(parsed.warningThreshold).toBeUndefined();
    expect(parsed.description).toBeUndefined();
    expect(parsed.filters).toEqual({ agent: "support" });
  });

  it.each([
    ["name", { name: "" }, "Must not be empty"],
    ["name", { name: "x".repeat(101) }, "Must be at most 100 characters"],
    ["description", { description: "x".repeat(1001) }, "Must be at most 1000 characters"],
    ["metric", { metric: "latency" }, expect.stringContaining("Must be one of: failure_rate")],
    ["windowMinutes", { windowMinutes: 7 }, "Must be a multiple of 5"],
    ["windowMinutes", { windowMinutes: 0 }, "Must be an integer from 5 to 10080"],
    ["windowMinutes", { windowMinutes: 10_085 }, "Must be an integer from 5 to 10080"],
    ["renotifyMinutes", { renotifyMinutes: 3 }, "Must be 0 (never) or an integer from 5 to 1440"],
    ["renotifyMinutes", { renotifyMinutes: 1441 }, "Must be 0 (never) or an integer from 5 to 1440"],
    ["minSessions", { minSessions: -1 }, "Must be an integer from 0 to 1000000"],
    ["minSessions", { minSessions: 1.5 }, "Must be an integer from 0 to 1000000"],
    ["noData", { noData: "ignore" }, "Must be one of: ok, keep, alert"],
    ["comparison", { comparison: "equal" }, "Must be one of: above, below"],
    [
      "destinationIds",
      { destinationIds: Array.from({ length: 6 }, (_, i) => `dst_01JD00000000000000000000${10 + i}`) },
      "Must name at most 5 destinations",
    ],
    [
      "destinationIds",
      { destinationIds: [valid.destinationIds[0], valid.destinationIds[0]] },
      "Must not repeat a destination",
    ],
    ["destinationIds.0", { destinationIds: ["web"] }, expect.stringContaining('Must be "dst_"')],
    ["filters", { filters: { agent: "a", __proto__: "x", team: "y" } }, expect.stringContaining("Unrecognized key")],
    ["", { extra: 1 }, 'Unrecognized key: "extra"'],
  ])("refuses a bad %s", (path, changes, message) => {
    expect(issuesOf(changes)).toEqual(expect.objectContaining({ [path]: message }));
  });

  it("requires each filter its metric needs and refuses filters the metric cannot use", () => {
    expect(issuesOf({ metric: "tool_failure_rate", filters: {} })).toEqual({
      "filters.tool": "Required by tool_failure_rate",
    });
    expect(issuesOf({ metric: "score_mean", filters: {}, warningThreshold: undefined })).toEqual({
      "filters.score": "Required by score_mean",
    });
    expect(issuesOf({ metric: "label_share", filters: { score: "helpful" } })).toEqual({
      "filters.label": "Required by label_share",
    });
    expect(issuesOf({ filters: { tool: "search" } })).toEqual({
      "filters.tool": "Not with failure_rate: tool filters tool_failure_rate",
    });
    expect(issuesOf({ filters: { model: "gpt-4o" } })).toEqual({
      "filters.model": "Not with failure_rate: model filters cost, tokens",
    });
    expect(issuesOf({ filters: { label: "bad" } })).toEqual(
      expect.objectContaining({ "filters.label": "Not with failure_rate: label filters label_share" }),
    );
    expect(issuesOf({ metric: "tool_failure_rate", filters: { tool: "search", user: "u1" } })).toEqual({
      "filters.user": expect.stringContaining("Not with tool_failure_rate: user filters failure_rate"),
      filters: "At most one of user, model, tool, score; got user, tool",
    });
    expect(issuesOf({ metric: "cost", filters: { model: "m", user: "u" }, alertThreshold: 50 })).toEqual({
      filters: "At most one of user, model, tool, score; got user, model",
    });
  });

  it("accepts each metric with the filters it takes", () => {
    expect(issuesOf({ metric: "cost", filters: { agent: "a", model: "gpt-4o" }, alertThreshold: 50 })).toEqual({});
    expect(issuesOf({ metric: "duration_p95", filters: { user: "u1" }, alertThreshold: 30_000 })).toEqual({});
    expect(issuesOf({ metric: "tool_failure_rate", filters: { tool: "search" } })).toEqual({});
    expect(issuesOf({ metric: "label_share", filters: { agent: "a", score: "verdict", label: "wrong#1" } })).toEqual(
      {},
    );
    expect(
      issuesOf({
        metric: "score_mean",
        filters: { score: "q" },
        comparison: "below",
        warningThreshold: -1,
        alertThreshold: -5,
      }),
    ).toEqual({});
  });

  it("keeps thresholds in the metric's range and the warning on the near side", () => {
    expect(issuesOf({ alertThreshold: 101, warningThreshold: 50 })).toEqual({
      alertThreshold: "Must be from 0 to 100 for failure_rate",
    });
    expect(issuesOf({ metric: "cost", alertThreshold: -1, warningThreshold: undefined })).toEqual({
      alertThreshold: "Must be from 0 to 1000000000000 for cost",
    });
    expect(issuesOf({ warningThreshold: 10 })).toEqual({
      warningThreshold: "Must be below alertThreshold when the comparison is above",
    });
    expect(issuesOf({ comparison: "below", warningThreshold: 5, alertThreshold: 10 })).toEqual({
      warningThreshold: "Must be above alertThreshold when the comparison is below",
    });
    expect(issuesOf({ comparison: "below", warningThreshold: 20, alertThreshold: 10 })).toEqual({});
    expect(issuesOf({ alertThreshold: Number.POSITIVE_INFINITY })).toEqual(
      expect.objectContaining({ alertThreshold: expect.stringContaining("Must be a number") }),
    );
  });
});
