/** The pure check of a score against its name's configuration (functions/domain/score-config.ts) and the PUT body. */
import { describe, expect, it } from "vitest";
import { type ScoreConfig, scoreConfigProblem } from "../../functions/domain/score-config.js";
import { putScoreConfigBody } from "../../functions/schemas/score-config-schemas.js";

const base = { updatedAt: "2026-11-27T00:00:00.000Z", updatedBy: "ada" };
const numeric = (min?: number, max?: number): ScoreConfig => ({ ...base, name: "n", dataType: "numeric", min, max });

describe("scoreConfigProblem", () => {
  it("lets anything through a name without a configuration", () => {
    expect(scoreConfigProblem(undefined, "anything")).toBeUndefined();
  });

  it("checks the kind first, then the range (closed at both ends, each end optional)", () => {
    expect(scoreConfigProblem(numeric(0, 1), true)).toBe("Must be a number (the configuration of score n)");
    expect(scoreConfigProblem(numeric(0, 1), 0)).toBeUndefined();
    expect(scoreConfigProblem(numeric(0, 1), 1)).toBeUndefined();
    expect(scoreConfigProblem(numeric(0, 1), 1.0000001)).toBe("Must be from 0 to 1 (the configuration of score n)");
    expect(scoreConfigProblem(numeric(-5), -6)).toBe("Must be at least -5 (the configuration of score n)");
    expect(scoreConfigProblem(numeric(undefined, 10), 11)).toBe("Must be at most 10 (the configuration of score n)");
    expect(scoreConfigProblem(numeric(), -1e15)).toBeUndefined();
  });

  it("takes only the configured labels, exactly (no case folding, no prototype lookups)", () => {
    const config: ScoreConfig = { ...base, name: "c", dataType: "categorical", labels: ["good", "bad"] };
    expect(scoreConfigProblem(config, "good")).toBeUndefined();
    expect(scoreConfigProblem(config, "Good")).toBe(
      "Must be one of the labels of the configuration of score c: good, bad",
    );
    expect(scoreConfigProblem(config, "constructor")).toBeDefined();
    expect(scoreConfigProblem({ ...config, labels: undefined }, "anything")).toBeUndefined();
    expect(scoreConfigProblem(config, 1)).toBe("Must be a label (the configuration of score c)");
    const many: ScoreConfig = { ...config, labels: Array.from({ length: 12 }, (_, i) => `l${i}`) };
    expect(scoreConfigProblem(many, "x")).toBe(
      "Must be one of the labels of the configuration of score c: l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, … (12 in all)",
    );
  });

  it("a boolean configuration takes true and false only", () => {
    const config: ScoreConfig = { ...base, name: "b", dataType: "boolean" };
    expect(scoreConfigProblem(config, false)).toBeUndefined();
    expect(scoreConfigProblem(config, "true")).toBe("Must be true or false (the configuration of score b)");
  });
});

describe("putScoreConfigBody", () => {
  const issues = (body: unknown) => {
    const parsed = putScoreConfigBody.safeParse(body);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join("."));
  };

  it("accepts each kind with its own fields, null as not sent", () => {
    expect(issues({ dataType: "numeric", min: -1, max: 1, description: "d" })).toEqual([]);
    expect(issues({ dataType: "numeric", min: 1, max: 1 })).toEqual([]);
    expect(issues({ dataType: "categorical", labels: ["a", "b"], min: null })).toEqual([]);
    expect(issues({ dataType: "boolean" })).toEqual([]);
  });

  it("refuses fields of another kind, crossed bounds, repeated or empty labels, unknown fields", () => {
    expect(issues({ dataType: "categorical", min: 0, max: 1 })).toEqual(["min", "max"]);
    expect(issues({ dataType: "numeric", min: 1, max: 0 })).toEqual(["max"]);
    expect(issues({ dataType: "boolean", labels: ["yes"] })).toEqual(["labels"]);
    expect(issues({ dataType: "categorical", labels: ["a", "a"] })).toEqual(["labels"]);
    expect(issues({ dataType: "categorical", labels: [""] })).toEqual(["labels.0"]);
    expect(issues({ dataType: "categorical", labels: Array.from({ length: 101 }, (_, i) => `l${i}`) })).toEqual([
      "labels",
    ]);
    // A `__proto__` key as JSON.parse makes it (an own key): unknown, refused — never a prototype to read `min` from.
    expect(issues(JSON.parse('{"dataType":"boolean","__proto__":{"min":5}}'))).toEqual([""]);
    expect(issues({ dataType: "numeric", extra: true })).toEqual([""]);
    expect(issues({})).toEqual(["dataType"]);
  });
});
