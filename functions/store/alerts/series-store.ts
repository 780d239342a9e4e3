/**
 * Reading the alert series (functions/domain/alert-series.ts): a window's totals from its buckets
 * (functions/domain/series-buckets.ts planWindow: 5-minute buckets at the edges, hourly ones inside, ≤ ~190
 * items for 7 days), or one point per UTC hour. One Query per range of buckets, eventually consistent (a count
 * seconds old is as good to a monitor evaluated every minute, at half the price); buckets past their TTL that
 * DynamoDB has not yet deleted are skipped. Every read is keyed by the query's tenant: another tenant's series
 * cannot be named.
 */
import type { SeriesPoint, SeriesQuery, SeriesWindow } from "../../domain/alert-series.js";
import {
  type BucketRange,
  bucketKeyText,
  hoursOfWindow,
  planWindow,
  type SeriesLevel,
} from "../../domain/series-buckets.js";
import type { Item } from "../table/entity.js";
import { tenant } from "../table/keys.js";
import { queryAll } from "../table/table-operations.js";
import {
  addSeriesItem,
  emptyMutableTotals,
  frozenTotals,
  type MutableTotals,
  seriesItemKey,
  seriesPartitionOf,
} from "./series-item.js";

function partitionOf(query: SeriesQuery): string {
  return seriesPartitionOf(tenant(query.orgId, query.environment), query.agent, query.facet);
}

function notExpired(item: Item, nowMs: number): boolean {
  return typeof item.ttl !== "number" || item.ttl > nowMs / 1000;
}

/** The unexpired items of consecutive buckets of one level: one Query (paged past 1 MB, which ~190 items never are). */
async function readRange(partition: string, range: BucketRange, nowMs: number): Promise<Item[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
    ExpressionAttributeValues: {
      ":pk": partition,
      ":from": seriesItemKey(partition, range.level, range.firstMs).SK,
      ":to": seriesItemKey(partition, range.level, range.lastMs).SK,
    },
    ConsistentRead: false,
  });
  return items.filter((item) => notExpired(item, nowMs));
}

/**
 * A window's totals: [start, end), both whole 5 minutes, at most 7 days (400 ValidationError otherwise). An edge
 * older than the 5-minute buckets are kept is read from its whole hour: `start`/`end` of the answer say what was
 * read.
 */
export async function readSeriesWindow(query: SeriesQuery, nowMs = Date.now()): Promise<SeriesWindow> {
  const plan = planWindow(query.start, query.end, nowMs);
  const partition = partitionOf(query);
  const read = await Promise.all(plan.ranges.map((range) => readRange(partition, range, nowMs)));
  const totals = emptyMutableTotals();
  let itemsRead = 0;
  for (const items of read) {
    itemsRead += items.length;
    for (const item of items) addSeriesItem(totals, item);
  }
  return { ...frozenTotals(totals), start: new Date(plan.startMs), end: new Date(plan.endMs), itemsRead };
}

/**
 * One point per UTC hour that [start, end) touches (each the whole hour's hourly bucket), oldest first; hours
 * without counts are points of zeros. One Query.
 */
export async function readSeriesHours(query: SeriesQuery, nowMs = Date.now()): Promise<readonly SeriesPoint[]> {
  const hours = hoursOfWindow(query.start, query.end);
  const level: SeriesLevel = "h1";
  const first = hours[0] as number;
  const last = hours.at(-1) as number;
  const items = await readRange(partitionOf(query), { level, firstMs: first, lastMs: last }, nowMs);
  const byBucket = new Map<string, MutableTotals>();
  for (const item of items) {
    const totals = byBucket.get(String(item.SK)) ?? emptyMutableTotals();
    addSeriesItem(totals, item);
    byBucket.set(String(item.SK), totals);
  }
  return hours.map((hour) => ({
    ...frozenTotals(byBucket.get(bucketKeyText(level, hour)) ?? emptyMutableTotals()),
    start: new Date(hour),
  }));
}
