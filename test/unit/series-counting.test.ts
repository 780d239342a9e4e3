/**
 * What a counted change adds to the alert series (functions/domain/series-counting.ts), and the facets monitors
 * watch (functions/store/alerts/watched-facets.ts watchedFacetsOf): times, facets, signs, and client text as names.
 */
import { describe, expect, it } from "vitest";
import { durationBin } from "../../functions/domain/duration-bins.js";
import {
  labelWatchKey,
  NOTHING_WATCHED,
  seriesCountsOfChange,
  type WatchedFacets,
} from "../../functions/domain/series-counting.js";
import type { CountedEvent } from "../../functions/domain/session-counting.js";
import { watchedFacetsOf } from "../../functions/store/alerts/watched-facets.js";
import { incrementOf } from "../../functions/store/counting/rollup-flush.js";
import { mergedSeriesUpdates, seriesUpdates } from "../../functions/store/counting/series-updates.js";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const session = { userId: "__proto__", createdAt: "2026-11-27T10:00:00.000Z" };
const watched: WatchedFacets = {
  ...NOTHING_WATCHED,
  users: new Set(["__proto__"]),
  tools: new Set(["a#b"]),
  models: new Set(["m#1"]),
};
const event = (extra: Partial<CountedEvent>): CountedEvent => ({
  eventType: "llm_decision",
  createdAt: "2026-11-27T11:59:00.000Z",
  ...extra,
});

describe("series counts of a change", () => {
  it("a start counted by its share: `started` at the session's start, for none and the watched user", () => {
    const counts = seriesCountsOfChange(
      { kind: "sessionStarted", sequence: "1" },
      { sessions: 1 },
      session,
      watched,
      NOW,
    );
    expect(counts).toEqual([
      { atMs: Date.parse(session.createdAt), facet: { kind: "none" }, counters: { started: 1 } },
      { atMs: Date.parse(session.createdAt), facet: { kind: "user", user: "__proto__" }, counters: { started: 1 } },
    ]);
    expect(seriesCountsOfChange({ kind: "sessionStarted", sequence: "1" }, {}, session, watched, NOW)).toEqual([]);
  });

  it("an end: ended, failed and its duration bin at its completedAt (now without one); none when not counted", () => {
    const ended = {
      kind: "sessionEnded" as const,
      sequence: "2",
      session: { status: "failed" as const, durationMs: 90_000, completedAt: "2026-11-27T11:00:00.000Z" },
    };
    const [none] = seriesCountsOfChange(ended, { failed: 1 }, session, NOTHING_WATCHED, NOW);
    expect(none).toEqual({
      atMs: Date.parse("2026-11-27T11:00:00.000Z"),
      facet: { kind: "none" },
      counters: { ended: 1, failed: 1 },
      bins: new Map([[durationBin(90_000), 1]]),
    });
    const completed = { ...ended, session: { status: "completed" as const } };
    expect(seriesCountsOfChange(completed, { completed: 1 }, session, NOTHING_WATCHED, NOW)).toEqual([
      { atMs: NOW, facet: { kind: "none" }, counters: { ended: 1 } },
    ]);
    expect(seriesCountsOfChange(ended, {}, session, NOTHING_WATCHED, NOW)).toEqual([]);
  });

  it("an error event naming a watched tool: errors for none and the user, callErrors for the tool, at occurredAt", () => {
    const change = {
      kind: "eventAdded" as const,
      sequence: "3",
      event: event({ eventType: "error", toolName: "a#b", occurredAt: "2026-11-27T11:30:00.000Z" }),
    };
    const atMs = Date.parse("2026-11-27T11:30:00.000Z");
    expect(seriesCountsOfChange(change, { events: 1 }, session, watched, NOW)).toEqual([
      { atMs, facet: { kind: "none" }, counters: { errors: 1 } },
      { atMs, facet: { kind: "user", user: "__proto__" }, counters: { errors: 1 } },
      { atMs, facet: { kind: "tool", tool: "a#b" }, counters: { callErrors: 1 } },
    ]);
  });

  it("a tool call of an unwatched tool counts nothing; a watched model's call counts calls, cost and tokens", () => {
    const toolCall = event({ eventType: "tool_call", toolName: "a" });
    expect(
      seriesCountsOfChange({ kind: "eventAdded", sequence: "4", event: toolCall }, {}, session, NOTHING_WATCHED, NOW),
    ).toEqual([]);
    const call = event({ model: "m#1", usage: { promptTokens: 10, completionTokens: 5 }, estimatedCost: 0.5 });
    const counts = seriesCountsOfChange({ kind: "eventAdded", sequence: "5", event: call }, {}, session, watched, NOW);
    const atMs = Date.parse(call.createdAt);
    expect(counts).toContainEqual({ atMs, facet: { kind: "none" }, counters: { cost: 0.5, tokens: 15 } });
    expect(counts).toContainEqual({
      atMs,
      facet: { kind: "model", model: "m#1" },
      counters: { calls: 1, cost: 0.5, tokens: 15 },
    });
  });

  it("a replaced event takes the old image out at its time and adds the new one at its own", () => {
    const before = event({ estimatedCost: 1, occurredAt: "2026-11-27T10:05:00.000Z" });
    const after = event({ estimatedCost: 3, occurredAt: "2026-11-27T11:05:00.000Z" });
    expect(
      seriesCountsOfChange({ kind: "eventReplaced", sequence: "6", before, after }, {}, session, NOTHING_WATCHED, NOW),
    ).toEqual([
      { atMs: Date.parse("2026-11-27T10:05:00.000Z"), facet: { kind: "none" }, counters: { cost: -1 } },
      { atMs: Date.parse("2026-11-27T11:05:00.000Z"), facet: { kind: "none" }, counters: { cost: 3 } },
    ]);
  });
});

describe("watched facets of the monitor items", () => {
  it("takes the names of enabled monitors' filters, client text included, and skips malformed ones", () => {
    const watchedNow = watchedFacetsOf([
      { enabled: true, filters: { user: "__proto__", agent: "x" } },
      { enabled: true, filters: { tool: "a#b" } },
      { enabled: true, filters: { model: "constructor" } },
      { enabled: true, filters: { score: "s#1", label: "l#1" } },
      { enabled: false, filters: { tool: "disabled" } },
      { enabled: true, filters: "not a map" },
      { enabled: true, filters: { tool: 7 } },
      { filters: { tool: "no enabled flag" } },
    ]);
    expect([...watchedNow.users]).toEqual(["__proto__"]);
    expect([...watchedNow.tools]).toEqual(["a#b"]);
    expect([...watchedNow.models]).toEqual(["constructor"]);
    expect([...watchedNow.scores]).toEqual(["s#1"]);
    expect([...watchedNow.labels]).toEqual([labelWatchKey("s#1", "l#1")]);
    expect(labelWatchKey("a#", "b")).not.toBe(labelWatchKey("a", "#b"));
  });
});

describe("series updates", () => {
  const tenantPrefix = "ORG#o#ENV#live";
  const at = Date.parse("2026-11-27T11:31:00Z");

  it("adds each count to the agent's and the tenant's series at both levels, skipping buckets past their TTL", () => {
    const counts = [{ atMs: at, facet: { kind: "none" as const }, counters: { errors: 1 } }];
    const updates = seriesUpdates(tenantPrefix, "a#b", counts, NOW).map((update) => incrementOf(update));
    expect(updates.map((update) => update.key.SK)).toEqual([
      "m5#2026-11-27T11:30",
      "h1#2026-11-27T11:00",
      "m5#2026-11-27T11:30",
      "h1#2026-11-27T11:00",
    ]);
    expect(new Set(updates.map((update) => update.key.PK)).size).toBe(2);
    expect(updates[0]?.add).toEqual({ errors: 1 });
    expect(updates[0]?.set).toMatchObject({ rollupKind: "series", level: "m5", bucket: "2026-11-27T11:30:00.000Z" });
    // Three days later the 5-minute buckets (kept 2 days) are gone: only the hourly ones are written.
    const late = seriesUpdates(tenantPrefix, "a#b", counts, NOW + 3 * 24 * 3600_000).map((update) =>
      incrementOf(update),
    );
    expect(late.map((update) => update.key.SK)).toEqual(["h1#2026-11-27T11:00", "h1#2026-11-27T11:00"]);
    expect(seriesUpdates(tenantPrefix, "a#b", counts, NOW + 9 * 24 * 3600_000)).toEqual([]);
  });

  it("merged for a transaction: one Update per item, its ADDs summed, zeros left out", () => {
    const merged = mergedSeriesUpdates(
      tenantPrefix,
      [
        {
          agent: "a",
          counts: [{ atMs: at, facet: { kind: "score", score: "s" }, counters: { scoreCount: 1, scoreSum: 0.5 } }],
        },
        {
          agent: "a",
          counts: [{ atMs: at, facet: { kind: "score", score: "s" }, counters: { scoreCount: -1, scoreSum: -0.25 } }],
        },
      ],
      NOW,
    ).map((update) => incrementOf(update));
    expect(merged).toHaveLength(4);
    for (const update of merged) expect(update.add).toEqual({ scoreSum: 0.25 });
  });
});
