/**
 * The Updates that add a change's alert series counts (functions/domain/series-counting.ts) to their bucket items:
 * each count to its agent's series and to the tenant's all-agents series, at both levels (5-minute, hourly). They
 * join the change's rollup share, so the rollup flush (rollup-flush.ts) sums them per item across the batch, writes
 * each item once, and counts each change exactly once by the items' per-shard marks. A bucket already past its
 * retention (late data: an event sent with an old `occurredAt`, a batch delivered days late) is not written.
 */
import type { SeriesCounter } from "../../domain/alert-series.js";
import { SERIES_COUNTERS } from "../../domain/alert-series.js";
import { durationBinAttribute } from "../../domain/duration-bins.js";
import { bucketExpiry, bucketStartOf, type SeriesLevel } from "../../domain/series-buckets.js";
import type { SeriesCount } from "../../domain/series-counting.js";
import { seriesItemAttributes, seriesItemKey, seriesPartitionOf } from "../alerts/series-item.js";
import type { ItemKey } from "../table/keys.js";
import { type TransactItem, updateRequest } from "../table/table-operations.js";
import { incrementOf } from "./rollup-flush.js";

const LEVELS: readonly SeriesLevel[] = ["m5", "h1"];
const DESCRIPTIVE = Object.keys(seriesItemAttributes("m5", 0));

function addsOf(count: SeriesCount): Record<string, number> {
  const add: Record<string, number> = {};
  for (const [name, value] of Object.entries(count.counters) as [SeriesCounter, number][]) {
    if (!(SERIES_COUNTERS as readonly string[]).includes(name)) throw new Error(`Not a series counter: ${name}`);
    if (!Number.isFinite(value)) throw new Error(`Series counter ${name} is not a finite number: ${String(value)}`);
    if (value !== 0) add[name] = value;
  }
  for (const [bin, value] of count.bins ?? []) {
    if (value !== 0) add[durationBinAttribute(bin)] = value;
  }
  return add;
}

/** The Updates of `counts` of a session of `agent` in the tenant, buckets past their retention left out. */
export function seriesUpdates(
  tenantPrefix: string,
  agent: string,
  counts: readonly SeriesCount[],
  nowMs: number,
): TransactItem[] {
  const nowSeconds = nowMs / 1000;
  return counts.flatMap((count) => {
    const add = addsOf(count);
    if (Object.keys(add).length === 0) return [];
    return [agent, undefined].flatMap((seriesAgent) =>
      LEVELS.flatMap((level) => {
        const bucket = bucketStartOf(level, count.atMs);
        if (bucketExpiry(level, bucket) <= nowSeconds) return [];
        const key = seriesItemKey(seriesPartitionOf(tenantPrefix, seriesAgent, count.facet), level, bucket);
        return [
          {
            Update: updateRequest(
              key,
              { set: seriesItemAttributes(level, bucket), add },
              { allowed: [...DESCRIPTIVE, ...Object.keys(add)], mayCreate: true },
            ),
          },
        ];
      }),
    );
  });
}

/** A session's or score's counts under its agent. */
export interface AgentSeriesCounts {
  readonly agent: string;
  readonly counts: readonly SeriesCount[];
}

/**
 * The Updates of several agents' counts with one Update per bucket item (its ADDs summed): for a transaction, which
 * may name an item once.
 */
export function mergedSeriesUpdates(
  tenantPrefix: string,
  entries: readonly AgentSeriesCounts[],
  nowMs: number,
): TransactItem[] {
  const items = new Map<string, { key: ItemKey; set: Record<string, unknown>; add: Record<string, number> }>();
  for (const { agent, counts } of entries) {
    for (const update of seriesUpdates(tenantPrefix, agent, counts, nowMs)) {
      const { key, set, add } = incrementOf(update);
      const id = `${key.PK}\u0000${key.SK}`;
      const item = items.get(id) ?? { key, set, add: {} };
      for (const [name, value] of Object.entries(add)) item.add[name] = (item.add[name] ?? 0) + value;
      items.set(id, item);
    }
  }
  return [...items.values()].flatMap(({ key, set, add }) => {
    const moving = Object.fromEntries(Object.entries(add).filter(([, value]) => value !== 0));
    if (Object.keys(moving).length === 0) return [];
    return [
      {
        Update: updateRequest(
          key,
          { set, add: moving },
          { allowed: [...DESCRIPTIVE, ...Object.keys(moving)], mayCreate: true },
        ),
      },
    ];
  });
}
