/**
 * The rollup flush's pure parts (functions/store/counting/rollup-flush.ts): rollup-store's Update items decoded into
 * increments (key, SET, ADD) and summed per item across a batch's shares, generically — whatever attributes
 * rollup-store adds — and the short per-shard mark attribute.
 */
import { describe, expect, it } from "vitest";
import { emptyModelTally } from "../../functions/domain/rollup.js";
import {
  incrementOf,
  pendingItems,
  rollupMarkAttribute,
  staleMarksOf,
} from "../../functions/store/counting/rollup-flush.js";
import { agentSummaryUpdate, rollupUpdates } from "../../functions/store/counting/rollup-store.js";

const target = { tenant: "ORG#o#ENV#live", agentName: "a", userId: "u", day: "2030-01-02", ttl: 1_900_000_000 };

describe("incrementOf", () => {
  it("decodes rollup-store's Updates: key, descriptive attributes SET, counters ADDed", () => {
    const [day] = rollupUpdates(target, { counters: { events: 2, eventCost: 0.5 } }, ["AGENT"]);
    const increment = incrementOf(day as never);
    expect(increment.key).toEqual({ PK: "ROLLUP#ORG#o#ENV#live#AGENT#a", SK: "DAY#2030-01-02" });
    expect(increment.set).toMatchObject({ day: "2030-01-02", ttl: 1_900_000_000, rollupKind: "day" });
    expect(increment.add).toEqual({ events: 2, eventCost: 0.5 });
  });

  it("keeps client text as values, never as expression syntax (a tool named `#x = :y, ADD`)", () => {
    const items = rollupUpdates(target, { counters: {}, tools: { "#x = :y, ADD": { calls: 1, errors: 0 } } }, ["USER"]);
    const tool = items
      .map((item) => incrementOf(item as never))
      .find((increment) => increment.set.toolName !== undefined);
    expect(tool?.set.toolName).toBe("#x = :y, ADD");
    expect(tool?.add).toEqual({ calls: 1 });
  });

  it("refuses an Update it could not merge (a condition)", () => {
    expect(() =>
      incrementOf({
        Update: {
          Key: { PK: "p", SK: "s" },
          UpdateExpression: "ADD #n :n",
          ConditionExpression: "attribute_exists(PK)",
        },
      }),
    ).toThrow(/unconditional/);
  });
});

describe("pendingItems", () => {
  it("sums the shares per distinct item across sessions, keeping each share's sequence", () => {
    const other = { ...target, userId: "v" };
    const items = pendingItems([
      { sequence: "1", appliedNow: true, updates: rollupUpdates(target, { counters: { events: 1 } }) },
      { sequence: "2", appliedNow: false, updates: rollupUpdates(other, { counters: { events: 1 } }) },
      { sequence: "3", appliedNow: true, updates: [agentSummaryUpdate(target.tenant, "a", 1, target.ttl)] },
    ]);
    // The agent's day (both sessions), each user's day, the agent summary.
    expect(items.map((item) => item.key.SK).sort()).toEqual([
      "AGENT#a",
      "DAY#2030-01-02",
      "DAY#2030-01-02",
      "DAY#2030-01-02",
    ]);
    const agentDay = items.find((item) => item.key.PK.endsWith("#AGENT#a") && item.key.SK.startsWith("DAY#"));
    expect(agentDay?.contributions.map((contribution) => [contribution.sequence, contribution.appliedNow])).toEqual([
      ["1", true],
      ["2", false],
    ]);
  });
});

describe("pendingItems of model calls", () => {
  it("gives each model of an agent's day one item, its shares across sessions summed into one ADD per counter", () => {
    const call = (calls: number, estimatedCost: number) => ({ ...emptyModelTally(), calls, estimatedCost });
    const items = pendingItems([
      {
        sequence: "1",
        appliedNow: true,
        updates: rollupUpdates(target, { counters: {}, models: new Map([["__proto__", call(1, 0.25)]]) }, ["AGENT"]),
      },
      {
        sequence: "2",
        appliedNow: true,
        updates: rollupUpdates(
          target,
          {
            counters: {},
            models: new Map([
              ["__proto__", call(2, 0.5)],
              ["m", call(1, 0)],
            ]),
          },
          ["AGENT"],
        ),
      },
    ]);
    const proto = items.find((item) => item.key.SK === "DAY#2030-01-02#MODEL#__proto__");
    expect(proto?.set).toMatchObject({ model: "__proto__", rollupKind: "model" });
    expect(proto?.contributions.map((contribution) => contribution.add)).toEqual([
      { calls: 1, estimatedCost: 0.25 },
      { calls: 2, estimatedCost: 0.5 },
    ]);
    expect(items.filter((item) => item.key.SK.includes("#MODEL#"))).toHaveLength(2);
  });
});

describe("rollupMarkAttribute", () => {
  it("is short, a plain attribute name, and differs between shards", () => {
    const first = rollupMarkAttribute("shardId-00000001700000000000-1a2b3c4d");
    const second = rollupMarkAttribute("shardId-00000001700000000000-1a2b3c4e");
    expect(first).toMatch(/^cm_[0-9a-f]{12}$/);
    expect(first).not.toBe(second);
  });
});

describe("staleMarksOf", () => {
  it("names other shards' marks not rewritten for over 25 hours (past the stream's retention), never its own", () => {
    const now = 2_000_000_000;
    const sequence = "1".padStart(40, "0");
    const item = {
      PK: "p",
      SK: "s",
      events: 3,
      cm_aaaaaaaaaaaa: `${sequence}.n1.${now - 26 * 3600}`,
      cm_bbbbbbbbbbbb: `${sequence}.n2.${now - 3600}`,
      cm_cccccccccccc: `${sequence}.n3.${now - 30 * 3600}`,
    };
    expect(staleMarksOf(item, "cm_cccccccccccc", now)).toEqual(["cm_aaaaaaaaaaaa"]);
  });
});
