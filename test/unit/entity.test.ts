import { describe, expect, it } from "vitest";
import { checkItem, defineEntity, ItemShapeError, stripStorage } from "../../functions/store/table/entity.js";

interface Widget {
  readonly id: string;
  readonly size: number;
  readonly colour?: string;
}

const widget = defineEntity<Widget, Widget>({
  tag: "widget",
  fields: { id: "string", size: "number" },
  storageAttributes: ["ttl"],
  key: (value) => ({ PK: `WIDGET#${value.id}`, SK: "WIDGET" }),
  indexKeys: (value) => ({ GSI1PK: `SIZE#${value.size}`, GSI1SK: value.id }),
  attributes: (value) => ({ ...value, ttl: 1 }),
});

describe("defineEntity", () => {
  it("writes the key, index keys and tag, and reads back the domain value without them", () => {
    // Act
    const item = widget.toItem({ id: "w1", size: 3, colour: "red" });

    // Assess
    expect(item).toEqual({
      PK: "WIDGET#w1",
      SK: "WIDGET",
      GSI1PK: "SIZE#3",
      GSI1SK: "w1",
      entity: "widget",
      id: "w1",
      size: 3,
      colour: "red",
      ttl: 1,
    });
    expect(widget.fromItem(item)).toEqual({ id: "w1", size: 3, colour: "red" });
  });

  it.each([
    ["another entity's item", { entity: "gadget", id: "w1", size: 3 }, 'is tagged "gadget"'],
    ["a missing field", { entity: "widget", id: "w1" }, "has size of type undefined, not number"],
    ["a field of the wrong type", { entity: "widget", id: "w1", size: "3" }, "has size of type string, not number"],
  ])("refuses %s", (_label, item, message) => {
    expect(() => widget.fromItem(item)).toThrow(ItemShapeError);
    expect(() => widget.fromItem(item)).toThrow(`A stored widget item ${message}`);
  });

  it("gives the tag and attributes without any key (what an update SETs)", () => {
    expect(widget.attributesOf({ id: "w1", size: 3 })).toEqual({ entity: "widget", id: "w1", size: 3, ttl: 1 });
  });

  it("accepts an untagged item that carries the fields (written by hand)", () => {
    expect(() => checkItem("widget", { id: "string" }, { id: "w1" })).not.toThrow();
  });
});

describe("stripStorage", () => {
  it("drops keys, every generic index key, the tag and the listed attributes only", () => {
    expect(stripStorage({ PK: "a", SK: "b", GSI8SK: "c", entity: "x", ttl: 1, GSIfoo: 2, name: "n" }, ["ttl"])).toEqual(
      {
        GSIfoo: 2,
        name: "n",
      },
    );
  });
});
