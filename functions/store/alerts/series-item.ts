/**
 * A series bucket item (functions/domain/alert-series.ts): its key, the attributes every write stamps on it, and
 * its counters as totals. Counters are ours (SERIES_COUNTERS and the duration bins `b<bin>`), never client text.
 */
import { SERIES_COUNTERS, type SeriesFacet, type SeriesTotals } from "../../domain/alert-series.js";
import { durationBinOf } from "../../domain/duration-bins.js";
import { bucketExpiry, bucketKeyText, type SeriesLevel } from "../../domain/series-buckets.js";
import type { Item } from "../table/entity.js";
import { type ItemKey, seriesBucketKey, seriesPartition } from "../table/keys.js";

/** The `rollupKind` of a series item (it lives among the rollups, under `ROLLUP#`). */
export const SERIES_ROLLUP_KIND = "series";

/** The names a facet is keyed by. */
export function facetNames(facet: SeriesFacet): string[] {
  switch (facet.kind) {
    case "none":
      return [];
    case "user":
      return [facet.user];
    case "tool":
      return [facet.tool];
    case "model":
      return [facet.model];
    case "score":
      return [facet.score];
    case "label":
      return [facet.score, facet.label];
  }
}

/** The partition of one series of a tenant. */
export function seriesPartitionOf(tenantPrefix: string, agent: string | undefined, facet: SeriesFacet): string {
  return seriesPartition(tenantPrefix, agent, { kind: facet.kind, names: facetNames(facet) });
}

/** The key of one bucket of a series. */
export function seriesItemKey(partition: string, level: SeriesLevel, bucketStartMs: number): ItemKey {
  return seriesBucketKey(partition, bucketKeyText(level, bucketStartMs));
}

/** What every write of a bucket SETs: its kind, level, start and expiry (no client text: the key holds digests). */
export function seriesItemAttributes(level: SeriesLevel, bucketStartMs: number): Record<string, unknown> {
  return {
    rollupKind: SERIES_ROLLUP_KIND,
    level,
    bucket: new Date(bucketStartMs).toISOString(),
    ttl: bucketExpiry(level, bucketStartMs),
  };
}

/** Totals being summed. */
export interface MutableTotals {
  counters: Record<(typeof SERIES_COUNTERS)[number], number>;
  bins: Map<number, number>;
}

export function emptyMutableTotals(): MutableTotals {
  return {
    counters: Object.fromEntries(SERIES_COUNTERS.map((counter) => [counter, 0])) as MutableTotals["counters"],
    bins: new Map(),
  };
}

/** Adds a series item's counters to `totals` (absent or malformed counters are 0; other attributes ignored). */
export function addSeriesItem(totals: MutableTotals, item: Item): void {
  for (const counter of SERIES_COUNTERS) {
    const value = item[counter];
    if (typeof value === "number" && Number.isFinite(value)) totals.counters[counter] += value;
  }
  for (const [name, value] of Object.entries(item)) {
    const bin = durationBinOf(name);
    if (bin === undefined || typeof value !== "number" || !Number.isFinite(value)) continue;
    const sum = (totals.bins.get(bin) ?? 0) + value;
    if (sum === 0) totals.bins.delete(bin);
    else totals.bins.set(bin, sum);
  }
}

export function frozenTotals(totals: MutableTotals): SeriesTotals {
  return { ...totals.counters, durationBins: totals.bins };
}
