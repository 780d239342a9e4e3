/**
 * The bucket arithmetic of the alert series (functions/domain/alert-series.ts). Pure.
 *
 * Two levels: 5-minute buckets (kept 2 days after the bucket) and hourly buckets (kept 8 days). A window
 * [start, end) reads 5-minute buckets at its edges (up to the first whole hour, from the last whole hour) and
 * hourly buckets inside, so a 7-day window reads at most 11 + 168 + 11 = 190 items. An edge whose 5-minute
 * buckets are past their retention is read from its hourly bucket instead: the window then starts (or ends) on
 * the whole hour, which the read reports.
 */
import { ValidationError } from "./errors.js";

export type SeriesLevel = "m5" | "h1";

export const FIVE_MINUTES_MS = 5 * 60 * 1000;
export const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** The longest window a series read covers. */
/** 7 days, and the 5-minute bucket a monitor's sliding window may start inside (monitor-state-machine.ts). */
export const MAX_SERIES_WINDOW_MS = 7 * DAY_MS + 5 * 60_000;

/** How long each level's bucket is, and how long after its end it is kept (its TTL). */
export const SERIES_LEVELS: Readonly<Record<SeriesLevel, { readonly sizeMs: number; readonly keptMs: number }>> = {
  m5: { sizeMs: FIVE_MINUTES_MS, keptMs: 2 * DAY_MS },
  h1: { sizeMs: HOUR_MS, keptMs: 8 * DAY_MS },
};

/**
 * 5-minute buckets are read only while they are surely all there: those that started within this of now (an hour
 * less than their retention, so that a read at the retention's edge never misses expired buckets).
 */
const FINE_READABLE_MS = SERIES_LEVELS.m5.keptMs - HOUR_MS;

/** The start (epoch ms) of the bucket of `level` holding `timeMs`. */
export function bucketStartOf(level: SeriesLevel, timeMs: number): number {
  const size = SERIES_LEVELS[level].sizeMs;
  return Math.floor(timeMs / size) * size;
}

/** When the bucket of `level` starting at `bucketStartMs` expires (epoch seconds): its end plus its retention. */
export function bucketExpiry(level: SeriesLevel, bucketStartMs: number): number {
  const { sizeMs, keptMs } = SERIES_LEVELS[level];
  return Math.floor((bucketStartMs + sizeMs + keptMs) / 1000);
}

/** A bucket's sort-key text: level and its UTC start to the minute (`m5#2026-11-27T11:25`); text order is time order. */
export function bucketKeyText(level: SeriesLevel, bucketStartMs: number): string {
  return `${level}#${new Date(bucketStartMs).toISOString().slice(0, 16)}`;
}

/** Why [start, end) is no series window (undefined: it is one). */
export function seriesWindowProblem(start: Date, end: Date): string | undefined {
  const startMs = start.getTime();
  const endMs = end.getTime();
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) return "start and end must be valid times";
  if (startMs % FIVE_MINUTES_MS !== 0 || endMs % FIVE_MINUTES_MS !== 0) {
    return "start and end must be whole 5 minutes (UTC)";
  }
  if (endMs <= startMs) return "end must be after start";
  if (endMs - startMs > MAX_SERIES_WINDOW_MS) return "a window spans at most 7 days and 5 minutes";
  return undefined;
}

/** Throws a ValidationError when [start, end) is no series window. */
export function assertSeriesWindow(start: Date, end: Date): void {
  const problem = seriesWindowProblem(start, end);
  if (problem !== undefined) throw new ValidationError(`Invalid series window: ${problem}`);
}

/** Consecutive buckets of one level: the first and last bucket starts (epoch ms, inclusive). */
export interface BucketRange {
  readonly level: SeriesLevel;
  readonly firstMs: number;
  readonly lastMs: number;
}

/** The buckets a window reads, and the window they cover (wider than asked where an edge fell back to hours). */
export interface WindowPlan {
  readonly ranges: readonly BucketRange[];
  readonly startMs: number;
  readonly endMs: number;
}

function range(level: SeriesLevel, fromMs: number, toMs: number): BucketRange[] {
  if (toMs <= fromMs) return [];
  return [{ level, firstMs: fromMs, lastMs: toMs - SERIES_LEVELS[level].sizeMs }];
}

/**
 * The buckets of [start, end) at `nowMs`: 5-minute buckets before the first whole hour and after the last, hourly
 * ones between; an edge whose 5-minute buckets may have expired widens to its whole hour. Validates the window.
 */
export function planWindow(start: Date, end: Date, nowMs: number): WindowPlan {
  assertSeriesWindow(start, end);
  const fineFrom = nowMs - FINE_READABLE_MS;
  let startMs = start.getTime();
  let endMs = end.getTime();
  if (startMs < fineFrom) {
    startMs = bucketStartOf("h1", startMs);
    // Within the start's hour: that hour's bucket is the window.
    if (endMs < startMs + HOUR_MS) endMs = startMs + HOUR_MS;
  }
  if (bucketStartOf("h1", endMs) < fineFrom && endMs % HOUR_MS !== 0) endMs = bucketStartOf("h1", endMs) + HOUR_MS;
  const firstHour = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
  const lastHourEnd = bucketStartOf("h1", endMs);
  if (firstHour >= lastHourEnd) {
    // No whole hour inside: 5-minute buckets throughout (the window lies within two adjacent hours).
    return { ranges: range("m5", startMs, endMs), startMs, endMs };
  }
  return {
    ranges: [
      ...range("m5", startMs, firstHour),
      ...range("h1", firstHour, lastHourEnd),
      ...range("m5", lastHourEnd, endMs),
    ],
    startMs,
    endMs,
  };
}

/** How many buckets a range holds. */
export function bucketCount(bucketRange: BucketRange): number {
  return (bucketRange.lastMs - bucketRange.firstMs) / SERIES_LEVELS[bucketRange.level].sizeMs + 1;
}

/** The UTC hours [start, end) touches, as hour starts (epoch ms). Validates the window. */
export function hoursOfWindow(start: Date, end: Date): number[] {
  assertSeriesWindow(start, end);
  const hours: number[] = [];
  for (let hour = bucketStartOf("h1", start.getTime()); hour < end.getTime(); hour += HOUR_MS) hours.push(hour);
  return hours;
}
