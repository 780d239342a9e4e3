/**
 * Rollups of several agents as one: the tenant's figures are the sum of its agents' (a session has exactly one
 * agent). Pure.
 */
import { mergeDurationBins } from "./duration-bins.js";
import { DAY_COUNTERS, type DayRow } from "./rollup.js";

/** The day rows of several agents summed per day (counters, coarse buckets and fine duration bins), by day. */
export function mergeDayRows(rows: Iterable<DayRow>): DayRow[] {
  const byDay = new Map<string, DayRow>();
  for (const row of rows) {
    const merged = byDay.get(row.day);
    if (merged === undefined) {
      byDay.set(row.day, { ...row, histogram: [...row.histogram], durationBins: new Map(row.durationBins) });
      continue;
    }
    for (const counter of DAY_COUNTERS) merged[counter] += row[counter];
    const length = Math.max(merged.histogram.length, row.histogram.length);
    merged.histogram = Array.from(
      { length },
      (_, index) => (merged.histogram[index] ?? 0) + (row.histogram[index] ?? 0),
    );
    merged.durationBins = mergeDurationBins([merged.durationBins, row.durationBins]);
  }
  return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
}
