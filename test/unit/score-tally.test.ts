import { describe, expect, it } from "vitest";
import { scoreBin, scoreBinAttribute } from "../../functions/domain/score-bins.js";
import { assembleScoreStats, type ScoreRow } from "../../functions/domain/score-stats.js";
import {
  type CountedScore,
  countedLabel,
  countingChange,
  MAX_SCORE_LABELS_PER_DAY,
  OTHER_LABEL,
} from "../../functions/domain/score-tally.js";

const base = { agentName: "bot", day: "2026-11-27", name: "helpfulness", ttl: 100 } as const;
const numeric = (value: number): CountedScore => ({ ...base, valueKind: "numeric", value });

describe("the counting change of a score", () => {
  it("counts a new score once at its place", () => {
    const [share] = countingChange(undefined, numeric(0.75));
    expect(share?.tally.counters).toEqual({
      count: 1,
      numericCount: 1,
      sum: 0.75,
      [scoreBinAttribute(scoreBin(0.75))]: 1,
    });
  });

  it("moves an edit in place by the difference, and an unchanged score by nothing", () => {
    const [share] = countingChange(numeric(0.75), numeric(-2));
    expect(share?.tally.counters).toEqual({
      sum: -2.75,
      [scoreBinAttribute(scoreBin(0.75))]: -1,
      [scoreBinAttribute(scoreBin(-2))]: 1,
    });
    expect(countingChange(numeric(0.75), numeric(0.75))).toEqual([]);
  });

  it("withdraws from the old place and adds to the new when the name or kind changes", () => {
    const label: CountedScore = { ...base, name: "tone", valueKind: "categorical", value: "__proto__" };
    const shares = countingChange(numeric(1), label);
    expect(shares.map((share) => share.place.name)).toEqual(["helpfulness", "tone"]);
    expect(shares[0]?.tally.counters.count).toBe(-1);
    expect([...(shares[1]?.tally.labels ?? [])]).toEqual([["__proto__", 1]]);
  });

  it("withdraws everything counted on deletion, booleans included", () => {
    const yes: CountedScore = { ...base, valueKind: "boolean", value: true };
    expect(countingChange(yes, undefined)[0]?.tally.counters).toEqual({ count: -1, trueCount: -1 });
  });
});

describe("labels per place", () => {
  it("admits labels up to the cap, then counts the others as (other)", () => {
    const known = new Set(Array.from({ length: MAX_SCORE_LABELS_PER_DAY - 1 }, (_, index) => `l${index}`));
    const admitted = new Set<string>();
    expect(countedLabel("l3", known, admitted)).toBe("l3");
    expect(countedLabel("new", known, admitted)).toBe("new");
    expect(countedLabel("new", known, admitted)).toBe("new");
    expect(countedLabel("another", known, admitted)).toBe(OTHER_LABEL);
    expect([...admitted]).toEqual(["new"]);
  });
});

describe("score stats over a period", () => {
  const row = (day: string, name: string, extra: Partial<ScoreRow>): ScoreRow => ({
    day,
    name,
    count: 0,
    numericCount: 0,
    sum: 0,
    trueCount: 0,
    falseCount: 0,
    bins: new Map(),
    labels: new Map(),
    ...extra,
  });

  it("sums days per name: mean, percentiles, true share, labels most counted first; empty names left out", () => {
    const stats = assembleScoreStats([
      row("2026-11-26", "h", { count: 2, numericCount: 2, sum: 1, bins: new Map([[scoreBin(0.5), 2]]) }),
      row("2026-11-27", "h", { count: 1, numericCount: 1, sum: 2, bins: new Map([[scoreBin(2), 1]]) }),
      row("2026-11-27", "ok", { count: 4, trueCount: 3, falseCount: 1 }),
      row("2026-11-27", "tone", {
        count: 3,
        labels: new Map([
          ["a", 1],
          ["b", 2],
          ["gone", 0],
        ]),
      }),
      row("2026-11-27", "withdrawn", {}),
    ]);
    expect(stats.scoresTruncated).toBe(false);
    expect(stats.scores.map((entry) => entry.name)).toEqual(["ok", "h", "tone"]);
    const h = stats.scores[1];
    expect(h?.numeric?.mean).toBe(1);
    expect(h?.numeric?.p50).toBeCloseTo(0.5, 1);
    expect(h?.days.map((day) => day.count)).toEqual([2, 1]);
    expect(stats.scores[0]?.boolean).toEqual({ count: 4, trueCount: 3, trueShare: 0.75 });
    expect(stats.scores[2]?.labels).toEqual([
      { label: "b", count: 2 },
      { label: "a", count: 1 },
    ]);
  });
});
