import { describe, expect, it } from "vitest";
import { BUCKET_COUNT, type DayRow } from "../../functions/domain/rollup.js";
import { mergeDayRows } from "../../functions/domain/rollup-merge.js";
import {
  FAILURE_REASON_GROUP_LENGTH,
  failureReasonGroup,
  hasRefinements,
  matchesRefinements,
} from "../../functions/domain/session-refinements.js";

const session = {
  name: "Refund request A-17",
  failureReason: undefined as string | undefined,
  toolCalls: { lookup_order: 2, issue_refund: 1 } as Record<string, number>,
  toolErrors: { issue_refund: 1 } as Record<string, number>,
};

describe("session refinements", () => {
  it("match a piece of the name ignoring case, a tool called and a tool failing", () => {
    expect(matchesRefinements(session, { nameContains: "REFUND req" })).toBe(true);
    expect(matchesRefinements(session, { nameContains: "cancel" })).toBe(false);
    expect(matchesRefinements(session, { toolName: "lookup_order" })).toBe(true);
    expect(matchesRefinements(session, { toolName: "send_email" })).toBe(false);
    expect(matchesRefinements(session, { toolError: "issue_refund" })).toBe(true);
    expect(matchesRefinements(session, { toolError: "lookup_order" })).toBe(false);
    expect(matchesRefinements(session, { toolName: "lookup_order", toolError: "issue_refund" })).toBe(true);
  });

  it("never take Object's own names for tools a session counted", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(matchesRefinements(session, { toolName: name }), name).toBe(false);
      expect(matchesRefinements(session, { toolError: name }), name).toBe(false);
    }
    const odd = { ...session, toolCalls: Object.fromEntries([["__proto__", 1]]) };
    expect(matchesRefinements(odd, { toolName: "__proto__" })).toBe(true);
  });

  it("compare failure reasons by the first characters the rollups group them by", () => {
    const long = `${"x".repeat(FAILURE_REASON_GROUP_LENGTH)} and then some`;
    const failed = { ...session, failureReason: long };
    expect(failureReasonGroup(long)).toBe("x".repeat(FAILURE_REASON_GROUP_LENGTH));
    expect(matchesRefinements(failed, { failureReason: failureReasonGroup(long) })).toBe(true);
    expect(matchesRefinements(failed, { failureReason: long })).toBe(true);
    expect(matchesRefinements(failed, { failureReason: "x" })).toBe(false);
    expect(matchesRefinements(session, { failureReason: "x" })).toBe(false);
    // Code points, not UTF-16 units: an emoji is never cut in half.
    expect([...failureReasonGroup("😀".repeat(FAILURE_REASON_GROUP_LENGTH + 1))]).toHaveLength(
      FAILURE_REASON_GROUP_LENGTH,
    );
  });

  it("are absent unless one is given", () => {
    expect(hasRefinements({})).toBe(false);
    expect(hasRefinements({ nameContains: "a" })).toBe(true);
    expect(matchesRefinements(session, {})).toBe(true);
  });
});

describe("merged day rows", () => {
  function day(day: string, sessions: number, bucket: number): DayRow {
    const histogram = Array.from({ length: BUCKET_COUNT }, (_, index) => (index === bucket ? sessions : 0));
    return {
      day,
      sessions,
      completed: sessions,
      failed: 0,
      succeeded: sessions,
      reportedCost: 0.5 * sessions,
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      durationCount: sessions,
      durationSum: 1000 * sessions,
      events: 3,
      eventCost: 0.01,
      histogram,
      durationBins: new Map([[100 + bucket, sessions]]),
    };
  }

  it("sum several agents' counters and histograms per day, by day, leaving the inputs as they were", () => {
    const a = day("2026-11-02", 2, 1);
    const b = day("2026-11-01", 1, 3);
    const c = day("2026-11-02", 3, 3);

    const merged = mergeDayRows([a, b, c]);

    expect(merged.map((row) => row.day)).toEqual(["2026-11-01", "2026-11-02"]);
    expect(merged[1]).toMatchObject({ sessions: 5, completed: 5, reportedCost: 2.5, totalTokens: 30, events: 6 });
    expect(merged[1]?.histogram.slice(0, 4)).toEqual([0, 2, 0, 3]);
    expect([...(merged[1]?.durationBins ?? [])].sort()).toEqual([
      [101, 2],
      [103, 3],
    ]);
    expect(a.sessions).toBe(2);
    expect(a.histogram[3]).toBe(0);
    expect([...a.durationBins]).toEqual([[101, 2]]);
  });
});
