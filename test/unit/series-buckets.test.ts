/**
 * The alert series' bucket arithmetic (functions/domain/series-buckets.ts) and keys (series-item.ts, keys.ts):
 * which buckets a window reads, their key text and expiry, the window's validation, and partitions that stay
 * distinct and bounded for any client text.
 */
import { describe, expect, it } from "vitest";
import type { SeriesFacet } from "../../functions/domain/alert-series.js";
import { ValidationError } from "../../functions/domain/errors.js";
import {
  assertSeriesWindow,
  bucketCount,
  bucketExpiry,
  bucketKeyText,
  bucketStartOf,
  hoursOfWindow,
  planWindow,
  seriesWindowProblem,
} from "../../functions/domain/series-buckets.js";
import { seriesItemKey, seriesPartitionOf } from "../../functions/store/alerts/series-item.js";

const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);
const NOW = ms("2026-11-27T12:03:00Z");

function described(plan: ReturnType<typeof planWindow>) {
  return plan.ranges.map((range) => ({
    level: range.level,
    first: new Date(range.firstMs).toISOString(),
    last: new Date(range.lastMs).toISOString(),
    count: bucketCount(range),
  }));
}

describe("a window's buckets", () => {
  it("reads 5-minute buckets at the edges and hourly ones inside", () => {
    const plan = planWindow(at("2026-11-27T08:25:00Z"), at("2026-11-27T11:40:00Z"), NOW);
    expect(described(plan)).toEqual([
      { level: "m5", first: "2026-11-27T08:25:00.000Z", last: "2026-11-27T08:55:00.000Z", count: 7 },
      { level: "h1", first: "2026-11-27T09:00:00.000Z", last: "2026-11-27T10:00:00.000Z", count: 2 },
      { level: "m5", first: "2026-11-27T11:00:00.000Z", last: "2026-11-27T11:35:00.000Z", count: 8 },
    ]);
    expect(plan.startMs).toBe(ms("2026-11-27T08:25:00Z"));
    expect(plan.endMs).toBe(ms("2026-11-27T11:40:00Z"));
  });

  it("reads only 5-minute buckets when no whole hour lies inside, and none of a whole-hour edge", () => {
    expect(described(planWindow(at("2026-11-27T10:50:00Z"), at("2026-11-27T11:10:00Z"), NOW))).toEqual([
      { level: "m5", first: "2026-11-27T10:50:00.000Z", last: "2026-11-27T11:05:00.000Z", count: 4 },
    ]);
    expect(described(planWindow(at("2026-11-27T11:55:00Z"), at("2026-11-27T12:00:00Z"), NOW))).toEqual([
      { level: "m5", first: "2026-11-27T11:55:00.000Z", last: "2026-11-27T11:55:00.000Z", count: 1 },
    ]);
    expect(described(planWindow(at("2026-11-27T09:00:00Z"), at("2026-11-27T11:00:00Z"), NOW))).toEqual([
      { level: "h1", first: "2026-11-27T09:00:00.000Z", last: "2026-11-27T10:00:00.000Z", count: 2 },
    ]);
  });

  it("reads at most 190 items for 7 days, its old edge widened to the hour (5-minute buckets kept 2 days)", () => {
    const end = at("2026-11-27T12:00:00Z");
    const start = new Date(end.getTime() - 7 * 24 * 3600_000);
    const plan = planWindow(start, end, NOW);
    expect(plan.ranges.reduce((sum, range) => sum + bucketCount(range), 0)).toBeLessThanOrEqual(190);
    const offHour = planWindow(at("2026-11-20T12:35:00Z"), at("2026-11-27T12:00:00Z"), NOW);
    expect(offHour.startMs).toBe(ms("2026-11-20T12:00:00Z"));
    expect(offHour.ranges.every((range) => range.level === "h1")).toBe(true);
    expect(offHour.ranges.reduce((sum, range) => sum + bucketCount(range), 0)).toBe(168);
  });

  it("widens an old window within one hour to that hour", () => {
    const plan = planWindow(at("2026-11-24T10:15:00Z"), at("2026-11-24T10:40:00Z"), NOW);
    expect(described(plan)).toEqual([
      { level: "h1", first: "2026-11-24T10:00:00.000Z", last: "2026-11-24T10:00:00.000Z", count: 1 },
    ]);
    expect(new Date(plan.endMs).toISOString()).toBe("2026-11-24T11:00:00.000Z");
  });

  it("keeps 5-minute edges that started within 47 hours, and widens older ones", () => {
    // NOW - 47 h = 2026-11-25T13:03.
    const kept = planWindow(at("2026-11-25T13:05:00Z"), at("2026-11-27T12:00:00Z"), NOW);
    expect(described(kept)[0]).toEqual({
      level: "m5",
      first: "2026-11-25T13:05:00.000Z",
      last: "2026-11-25T13:55:00.000Z",
      count: 11,
    });
    const widened = planWindow(at("2026-11-25T13:00:00Z"), at("2026-11-27T12:00:00Z"), NOW);
    expect(described(widened)[0]?.level).toBe("h1");
    const older = planWindow(at("2026-11-25T12:55:00Z"), at("2026-11-27T12:00:00Z"), NOW);
    expect(older.startMs).toBe(ms("2026-11-25T12:00:00Z"));
  });
});

describe("a window's validation", () => {
  it.each([
    ["2026-11-27T10:02:00Z", "2026-11-27T11:00:00Z", "start and end must be whole 5 minutes (UTC)"],
    ["2026-11-27T10:00:00Z", "2026-11-27T11:00:30Z", "start and end must be whole 5 minutes (UTC)"],
    ["2026-11-27T11:00:00Z", "2026-11-27T11:00:00Z", "end must be after start"],
    ["2026-11-27T11:00:00Z", "2026-11-27T10:00:00Z", "end must be after start"],
    ["2026-11-20T10:50:00Z", "2026-11-27T11:00:00Z", "a window spans at most 7 days and 5 minutes"],
    ["not a time", "2026-11-27T11:00:00Z", "start and end must be valid times"],
  ])("%s … %s is refused: %s", (start, end, problem) => {
    expect(seriesWindowProblem(at(start), at(end))).toBe(problem);
    expect(() => assertSeriesWindow(at(start), at(end))).toThrow(ValidationError);
    expect(() => planWindow(at(start), at(end), NOW)).toThrow(`Invalid series window: ${problem}`);
  });

  it("accepts exactly 7 days and exactly 5 minutes", () => {
    expect(seriesWindowProblem(at("2026-11-20T11:00:00Z"), at("2026-11-27T11:00:00Z"))).toBeUndefined();
    expect(seriesWindowProblem(at("2026-11-27T11:00:00Z"), at("2026-11-27T11:05:00Z"))).toBeUndefined();
  });
});

describe("buckets", () => {
  it("start on whole 5 minutes and hours, keyed in time order, and expire 2 and 8 days after their end", () => {
    const time = ms("2026-11-27T11:29:59.999Z");
    expect(new Date(bucketStartOf("m5", time)).toISOString()).toBe("2026-11-27T11:25:00.000Z");
    expect(new Date(bucketStartOf("h1", time)).toISOString()).toBe("2026-11-27T11:00:00.000Z");
    expect(bucketKeyText("m5", bucketStartOf("m5", time))).toBe("m5#2026-11-27T11:25");
    expect(bucketKeyText("h1", bucketStartOf("h1", time))).toBe("h1#2026-11-27T11:00");
    expect(bucketKeyText("m5", ms("2026-11-27T09:55:00Z")) < bucketKeyText("m5", ms("2026-11-27T10:00:00Z"))).toBe(
      true,
    );
    expect(bucketExpiry("m5", ms("2026-11-27T11:25:00Z"))).toBe(ms("2026-11-29T11:30:00Z") / 1000);
    expect(bucketExpiry("h1", ms("2026-11-27T11:00:00Z"))).toBe(ms("2026-12-05T12:00:00Z") / 1000);
  });

  it("of a window's hours: every hour it touches", () => {
    expect(
      hoursOfWindow(at("2026-11-27T09:35:00Z"), at("2026-11-27T11:05:00Z")).map((hour) => new Date(hour).toISOString()),
    ).toEqual(["2026-11-27T09:00:00.000Z", "2026-11-27T10:00:00.000Z", "2026-11-27T11:00:00.000Z"]);
  });
});

describe("series partitions", () => {
  const tenantPrefix = "ORG#org_a#ENV#live";
  const long = "é".repeat(128) + "#".repeat(128);
  const facets: readonly SeriesFacet[] = [
    { kind: "none" },
    { kind: "user", user: "a#b" },
    { kind: "user", user: "a" },
    { kind: "tool", tool: "a#b" },
    { kind: "tool", tool: "__proto__" },
    { kind: "model", model: "__proto__" },
    { kind: "score", score: "a#b" },
    { kind: "label", score: "a", label: "b#c" },
    { kind: "label", score: "a#b", label: "c" },
    { kind: "label", score: "a", label: "b" },
    { kind: "user", user: long },
    { kind: "tool", tool: long },
  ];

  it("differ for every agent and facet, names with #, __proto__ and 256 characters included", () => {
    const agents = [undefined, "a", "a#b", "__proto__", long, "*"];
    const partitions = agents.flatMap((agent) => facets.map((facet) => seriesPartitionOf(tenantPrefix, agent, facet)));
    expect(new Set(partitions).size).toBe(agents.length * facets.length);
  });

  it("are bounded whatever the names (far below DynamoDB's 2,048 bytes) and hold no client text", () => {
    const partition = seriesPartitionOf(tenantPrefix, long, { kind: "label", score: long, label: long });
    expect(Buffer.byteLength(partition)).toBeLessThan(150);
    expect(partition).not.toContain("é");
    expect(partition.startsWith(`ROLLUP#${tenantPrefix}#SERIES#`)).toBe(true);
  });

  it("are the tenant's: another environment or organisation has other partitions", () => {
    const facet: SeriesFacet = { kind: "tool", tool: "search" };
    expect(seriesPartitionOf(tenantPrefix, "a", facet)).not.toBe(seriesPartitionOf("ORG#org_a#ENV#test", "a", facet));
    expect(seriesPartitionOf(tenantPrefix, "a", facet)).not.toBe(seriesPartitionOf("ORG#org_b#ENV#live", "a", facet));
  });

  it("hold both levels, each bucket its own sort key", () => {
    const partition = seriesPartitionOf(tenantPrefix, undefined, { kind: "none" });
    expect(seriesItemKey(partition, "m5", ms("2026-11-27T11:00:00Z"))).toEqual({
      PK: partition,
      SK: "m5#2026-11-27T11:00",
    });
    expect(seriesItemKey(partition, "h1", ms("2026-11-27T11:00:00Z")).SK).toBe("h1#2026-11-27T11:00");
  });
});
