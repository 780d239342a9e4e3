import { describe, expect, it } from "vitest";
import { type JsonValue, jsonEqual } from "../../functions/domain/json.js";

type Case = readonly [label: string, left: JsonValue | undefined, right: JsonValue | undefined];

describe("jsonEqual", () => {
  it.each<Case>([
    ["equal numbers", 1.5, 1.5],
    ["equal strings", "a", "a"],
    ["true and true", true, true],
    ["null and null", null, null],
    ["undefined and undefined", undefined, undefined],
    ["empty objects", {}, {}],
    ["empty arrays", [], []],
    ["0 and -0 (the same JSON number)", 0, -0],
    ["objects with keys in another order", { a: 1, b: "x", c: null }, { c: null, b: "x", a: 1 }],
    [
      "nested objects with keys in another order",
      { outer: { a: [1, { x: true, y: false }], b: {} } },
      { outer: { b: {}, a: [1, { y: false, x: true }] } },
    ],
    ["equal arrays of mixed values", [1, "two", null, [3], { four: 4 }], [1, "two", null, [3], { four: 4 }]],
  ])("treats %s as equal", (_label, left, right) => {
    // Prepare: the pair is the case.

    // Act
    const forwards = jsonEqual(left, right);
    const backwards = jsonEqual(right, left);

    // Assess
    expect(forwards).toBe(true);
    expect(backwards).toBe(true);
  });

  it.each<Case>([
    ["different numbers", 1, 2],
    ["a number and its string", 1, "1"],
    ["false and 0", false, 0],
    ["null and undefined", null, undefined],
    ["a value and undefined", 0, undefined],
    ["null and an empty object", null, {}],
    ["an empty object and an empty array", {}, []],
    ["an array and an object with index keys", [1, 2], { "0": 1, "1": 2 }],
    ["arrays in another order", [1, 2], [2, 1]],
    ["arrays of different length", [1, 2], [1, 2, 3]],
    ["an object with an extra key", { a: 1 }, { a: 1, b: 2 }],
    ["objects with different keys of the same count", { a: 1 }, { b: 1 }],
    ["objects with one differing value", { a: 1, b: 2 }, { a: 1, b: 3 }],
    ["a difference deep inside", { a: [{ b: { c: [1, 2, 3] } }] }, { a: [{ b: { c: [1, 2, 4] } }] }],
    ["a key with null and a key with an object", { a: null }, { a: {} }],
  ])("treats %s as different", (_label, left, right) => {
    // Prepare: the pair is the case.

    // Act
    const forwards = jsonEqual(left, right);
    const backwards = jsonEqual(right, left);

    // Assess
    expect(forwards).toBe(false);
    expect(backwards).toBe(false);
  });

  it("compares an own __proto__ key as data", () => {
    // Prepare
    const left = JSON.parse('{"__proto__": {"a": 1}}') as JsonValue;
    const same = JSON.parse('{"__proto__": {"a": 1}}') as JsonValue;
    const different = JSON.parse('{"__proto__": {"a": 2}}') as JsonValue;

    // Act
    const results = [jsonEqual(left, same), jsonEqual(left, different), jsonEqual(left, {})];

    // Assess
    expect(results).toEqual([true, false, false]);
  });
});
