/**
 * The rollup entities (functions/store/counting/rollup-store.ts): the transaction items that ADD to a day, its
 * tools, its failure reasons and an agent's summary, and the checked reading of stored items.
 */
import { describe, expect, it } from "vitest";
import { emptyModelTally, UNNAMED_MODEL } from "../../functions/domain/rollup.js";
import {
  agentSummaryOf,
  agentSummaryUpdate,
  rollupRowOf,
  rollupUpdates,
} from "../../functions/store/counting/rollup-store.js";
import { ItemShapeError } from "../../functions/store/table/entity.js";
import {
  agentSummaryKey,
  rollupDayKey,
  rollupDurationsKey,
  rollupPartition,
  tenant,
} from "../../functions/store/table/keys.js";
import { DisallowedAttributeError } from "../../functions/store/table/update-expression.js";

const tenantPrefix = tenant("org-1", "live");
const target = { tenant: tenantPrefix, agentName: "bot", userId: "u-1", day: "2024-05-01", ttl: 1_800_000_000 };

describe("rollupUpdates", () => {
  it("ADDs the non-zero counters to the agent's and the user's day, stamping tag, day, ttl and kind", () => {
    // Act
    const items = rollupUpdates(target, { counters: { sessions: 1, events: 0, h03: 1 } });

    // Assess
    expect(items).toHaveLength(2);
    const agentDay = items[0]?.Update;
    expect(agentDay?.Key).toEqual(rollupDayKey(rollupPartition(tenantPrefix, "AGENT", "bot"), "2024-05-01"));
    expect(items[1]?.Update?.Key).toEqual(rollupDayKey(rollupPartition(tenantPrefix, "USER", "u-1"), "2024-05-01"));
    expect(agentDay?.ConditionExpression).toBeUndefined();
    expect(agentDay?.UpdateExpression).toBe(
      "SET #entity = :entity, #day = :day, #ttl = :ttl, #rollupKind = :rollupKind ADD #sessions :sessions, #h03 :h03",
    );
    expect(agentDay?.ExpressionAttributeValues).toEqual({
      ":entity": "rollup",
      ":day": "2024-05-01",
      ":ttl": 1_800_000_000,
      ":rollupKind": "day",
      ":sessions": 1,
      ":h03": 1,
    });
  });

  it("writes a tool item per tool with calls or errors, and the failure reason cut to 200 characters", () => {
    // Act
    const items = rollupUpdates(target, {
      counters: {},
      tools: { search: { calls: 2, errors: 1 }, idle: { calls: 0, errors: 0 } },
      failure: { reason: "x".repeat(300), count: 1 },
    });

    // Assess
    const agentItems = items.slice(0, 3).map((item) => item.Update);
    expect(agentItems.map((update) => update?.Key?.SK)).toEqual([
      "DAY#2024-05-01",
      "DAY#2024-05-01#TOOL#search",
      `DAY#2024-05-01#FAIL#${"x".repeat(200)}`,
    ]);
    expect(agentItems[1]?.ExpressionAttributeValues).toMatchObject({
      ":toolName": "search",
      ":calls": 2,
      ":errors": 1,
    });
    expect(agentItems[2]?.ExpressionAttributeValues).toMatchObject({ ":reason": "x".repeat(200), ":count": 1 });
    expect(items).toHaveLength(6);
  });

  it("ADDs the fine duration bins to the day's duration item, beside the day item, and only when one moves", () => {
    // Act
    const items = rollupUpdates(target, { counters: { durationCount: 1, h03: 1, b169: 1, b170: 0 } }, ["AGENT"]);
    const none = rollupUpdates(target, { counters: { sessions: 1, b169: 0 } }, ["AGENT"]);

    // Assess
    const [day, durations] = items.map((item) => item.Update);
    expect(items).toHaveLength(2);
    expect(day?.UpdateExpression).toBe(
      "SET #entity = :entity, #day = :day, #ttl = :ttl, #rollupKind = :rollupKind ADD #durationCount :durationCount, #h03 :h03",
    );
    expect(durations?.Key).toEqual(rollupDurationsKey(rollupPartition(tenantPrefix, "AGENT", "bot"), "2024-05-01"));
    expect(durations?.Key?.SK).toBe("DAY#2024-05-01#DUR");
    expect(durations?.UpdateExpression).toBe(
      "SET #entity = :entity, #day = :day, #ttl = :ttl, #rollupKind = :rollupKind ADD #b169 :b169",
    );
    expect(durations?.ExpressionAttributeValues).toMatchObject({ ":rollupKind": "durations", ":b169": 1 });
    expect(none).toHaveLength(1);
  });

  it("refuses a counter that is not a finite number, or not a day counter", () => {
    expect(() => rollupUpdates(target, { counters: { events: Number.NaN } })).toThrow("not a finite number");
    expect(() => rollupUpdates(target, { counters: { b12: Number.POSITIVE_INFINITY } })).toThrow("not a finite number");
    expect(() => rollupUpdates(target, { counters: { h99: 1 } })).toThrow(DisallowedAttributeError);
  });
});

describe("agentSummaryUpdate", () => {
  it("ADDs the delta to the agent's summary", () => {
    const update = agentSummaryUpdate(tenantPrefix, "bot", -1, 5).Update;
    expect(update?.Key).toEqual(agentSummaryKey(tenantPrefix, "bot"));
    expect(update?.ExpressionAttributeValues).toEqual({
      ":entity": "rollup",
      ":rollupKind": "agentSummary",
      ":agentName": "bot",
      ":ttl": 5,
      ":sessionCount": -1,
    });
  });
});

describe("reading rollup items", () => {
  it("reads a day with absent counters as 0 and its histogram", () => {
    const found = rollupRowOf({
      PK: "p",
      SK: "DAY#2024-05-01",
      entity: "rollup",
      day: "2024-05-01",
      sessions: 2,
      h01: 1,
    });
    expect(found.kind).toBe("day");
    expect(found.row).toMatchObject({ day: "2024-05-01", sessions: 2, completed: 0 });
    expect(found.kind === "day" && found.row.histogram.slice(0, 3)).toEqual([0, 1, 0]);
  });

  it("tells tools and failures by rollupKind, or for older items by their descriptive attribute, never the key", () => {
    expect(rollupRowOf({ SK: "DAY#d#FAIL#a#TOOL#b", day: "d", reason: "a#TOOL#b", count: 3 })).toEqual({
      kind: "failure",
      row: { day: "d", reason: "a#TOOL#b", count: 3 },
    });
    expect(rollupRowOf({ rollupKind: "tool", day: "d", toolName: "t", calls: 1 })).toEqual({
      kind: "tool",
      row: { day: "d", toolName: "t", calls: 1, errors: 0 },
    });
  });

  it("reads a duration item as its counted bins only", () => {
    expect(
      rollupRowOf({
        PK: "p",
        SK: "DAY#2024-05-01#DUR",
        entity: "rollup",
        rollupKind: "durations",
        day: "2024-05-01",
        ttl: 1,
        b0: 2,
        b169: 1,
        b170: 0,
        b07: 5,
      }),
    ).toEqual({
      kind: "durations",
      row: {
        day: "2024-05-01",
        bins: new Map([
          [0, 2],
          [169, 1],
        ]),
      },
    });
  });

  it("refuses another entity's item or one without its day", () => {
    expect(() => rollupRowOf({ entity: "session", day: "d" })).toThrow(ItemShapeError);
    expect(() => rollupRowOf({ entity: "rollup", rollupKind: "day" })).toThrow(ItemShapeError);
  });

  it("reads an agent summary", () => {
    expect(
      agentSummaryOf({ PK: "p", SK: "AGENT#bot", entity: "rollup", agentName: "bot", sessionCount: 4, ttl: 1 }),
    ).toEqual({ agentName: "bot", sessionCount: 4 });
  });
});

describe("the agent's model items", () => {
  const tally = (calls: number, estimatedCost = 0) => ({
    ...emptyModelTally(),
    calls,
    estimatedCost,
    promptTokens: 10 * calls,
  });

  it("ADDs one item per model (the name in the key and `model`, never an attribute name) to the agent's day only", () => {
    const models = new Map([
      ["__proto__", tally(1, 0.5)],
      [UNNAMED_MODEL, tally(1)],
      ["withdrawn", emptyModelTally()],
    ]);
    const items = rollupUpdates(target, { counters: {}, models });

    const modelItems = items.filter((item) => String(item.Update?.Key?.SK).includes("#MODEL#"));
    const partition = rollupPartition(tenantPrefix, "AGENT", "bot");
    expect(modelItems.map((item) => item.Update?.Key)).toEqual([
      { PK: partition, SK: "DAY#2024-05-01#MODEL#__proto__" },
      { PK: partition, SK: "DAY#2024-05-01#MODEL#" },
    ]);
    const update = modelItems[0]?.Update;
    expect(Object.values(update?.ExpressionAttributeNames ?? {})).not.toContain("__proto__");
    expect(update?.ExpressionAttributeValues).toMatchObject({
      ":model": "__proto__",
      ":rollupKind": "model",
      ":calls": 1,
      ":estimatedCost": 0.5,
      ":promptTokens": 10,
    });
  });

  it("reads a model item back as its row", () => {
    const [item] = rollupUpdates(target, { counters: {}, models: new Map([["constructor", tally(2)]]) }).filter(
      (each) => String(each.Update?.Key?.SK).includes("#MODEL#"),
    );
    const update = item?.Update;
    const stored: Record<string, unknown> = { ...update?.Key };
    for (const [placeholder, name] of Object.entries(update?.ExpressionAttributeNames ?? {})) {
      stored[name] = update?.ExpressionAttributeValues?.[`:${placeholder.slice(1)}`];
    }

    expect(rollupRowOf(stored)).toEqual({
      kind: "model",
      row: { day: "2024-05-01", model: "constructor", ...tally(2) },
    });
  });
});
