import { describe, expect, it } from "vitest";
import { counterMapKey, countersFromStored, toolNameOf } from "../../functions/store/sessions/counter-keys.js";

const NAMES = ["constructor", "__proto__", "~__proto__", "~", "~~", "toString", "hasOwnProperty", "valueOf", "search"];

describe("tool names as keys of the stored counter maps", () => {
  it("map to distinct keys, none of them __proto__, and back to the same names", () => {
    const keys = NAMES.map(counterMapKey);

    expect(new Set(keys).size).toBe(NAMES.length);
    expect(keys).not.toContain("__proto__");
    expect(keys.map(toolNameOf)).toEqual(NAMES);
  });

  it("read back into an object without a prototype: every name is an own key, nothing is inherited", () => {
    // What the document client gives for a stored map (own keys; __proto__ stored escaped).
    const stored = Object.fromEntries(NAMES.map((name, index) => [counterMapKey(name), index + 1]));

    const counts = countersFromStored(stored);

    expect(Object.getPrototypeOf(counts)).toBeNull();
    expect(Object.entries(counts)).toEqual(NAMES.map((name, index) => [name, index + 1]));
    expect(countersFromStored({}).constructor).toBeUndefined();
    expect(countersFromStored(undefined)).toEqual({});
  });
});
