import { describe, expect, it } from "vitest";
import { buildUpdate, DisallowedAttributeError } from "../../functions/store/table/update-expression.js";

describe("buildUpdate", () => {
  it("sets, adds and removes allow-listed attributes through placeholders, leaving undefined values out", () => {
    // Prepare
    const changes = { set: { status: "running", note: undefined }, add: { count: 2 }, remove: ["lockedUntil"] };

    // Act
    const parts = buildUpdate(changes, ["status", "note", "count", "lockedUntil"]);

    // Assess
    expect(parts).toEqual({
      UpdateExpression: "SET #status = :status ADD #count :count REMOVE #lockedUntil",
      ExpressionAttributeNames: { "#status": "status", "#count": "count", "#lockedUntil": "lockedUntil" },
      ExpressionAttributeValues: { ":status": "running", ":count": 2 },
    });
  });

  it.each([
    ["a name off the allow-list", { set: { PK: "x" } }],
    ["a request key such as __proto__", { set: JSON.parse('{"__proto__": 1}') as Record<string, unknown> }],
    ["an allowed name that is no plain identifier", { set: { "a.b": 1 } }],
  ])("refuses %s", (_label, changes) => {
    expect(() => buildUpdate(changes, ["status"])).toThrow(DisallowedAttributeError);
  });

  it("refuses an allow-listed name that is not a plain identifier", () => {
    expect(() => buildUpdate({ set: { "a b": 1 } }, ["a b"])).toThrow(DisallowedAttributeError);
  });

  it("refuses an update that changes nothing, and an attribute both set and added", () => {
    expect(() => buildUpdate({ set: { a: undefined } }, ["a"])).toThrow("at least one attribute");
    expect(() => buildUpdate({ set: { a: 1 }, add: { a: 1 } }, ["a"])).toThrow("both");
  });
});
