/** Stats periods (in the URL as `days`), as the whole UTC days the API counts, with empty days filled. */
import type { DayStats } from "../api/types";

export const PERIODS = [7, 14, 30, 90, 180, 366] as const;
export const DEFAULT_PERIOD = 30;
/** The longest period: the API's limit, and what is read to find the period that fits an agent's data. */
export const LONGEST_PERIOD = 366;
const DAY_MS = 86_400_000;

/** The period in the URL, or `undefined` when there is none (or it is not one of PERIODS). */
export function parsePeriod(value: string | null): number | undefined {
  const days = Number(value);
  return (PERIODS as readonly number[]).includes(days) ? days : undefined;
}

export function periodLabel(days: number): string {
  return days === LONGEST_PERIOD ? "Last 12 months" : `Last ${days} days`;
}

export function today(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

export function periodRange(days: number, now = Date.now()): { from: string; to: string } {
  const to = today(now);
  const from = new Date(Date.parse(to) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}

/** The shortest period that reaches back to `firstDay` (the first day with data), so the charts are not mostly empty. */
export function fittingPeriod(firstDay: string | undefined, now = Date.now()): number {
  if (firstDay === undefined) return DEFAULT_PERIOD;
  const span = Math.round((Date.parse(today(now)) - Date.parse(firstDay)) / DAY_MS) + 1;
  return PERIODS.find((days) => days >= span) ?? LONGEST_PERIOD;
}

export interface DayPoint {
  day: string;
  sessions: number;
  completed: number;
  failed: number;
  successRate: number | null;
  /** Reported cost, or the events' cost when no session of the day reported one. */
  cost: number;
  tokens: number;
}

/** A day's cost: what the sessions reported, else what their events cost. */
export function costOf(summary: Pick<DayStats, "reportedCost" | "eventCost">): number {
  return summary.reportedCost || summary.eventCost;
}

function point(day: string, summary: DayStats | undefined): DayPoint {
  return {
    day,
    sessions: summary?.sessions ?? 0,
    completed: summary?.completed ?? 0,
    failed: summary?.failed ?? 0,
    successRate: summary?.successRate === null || summary?.successRate === undefined ? null : summary.successRate * 100,
    cost: summary === undefined ? 0 : costOf(summary),
    tokens: summary?.totalTokens ?? 0,
  };
}

/** One point per day of `from`…`to` (the API sends only the days with data). */
export function dailySeries(stats: { from: string; to: string; days: readonly DayStats[] }): DayPoint[] {
  const byDay = new Map(stats.days.map((day) => [day.day, day]));
  const points: DayPoint[] = [];
  for (let time = Date.parse(stats.from); time <= Date.parse(stats.to); time += DAY_MS) {
    const day = new Date(time).toISOString().slice(0, 10);
    points.push(point(day, byDay.get(day)));
  }
  return points;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A day as an axis label: "23 Nov"; with the year ("23 Nov 2026") when the period spans more than one year, so
 * that "2 Jan" after "30 Dec" is not read as the same year.
 */
export function dayTick(day: string, spansYears: boolean): string {
  const [year, month, date] = day.split("-");
  const label = `${Number(date)} ${MONTHS[Number(month) - 1] ?? month}`;
  return spansYears ? `${label} ${year}` : label;
}

export function spansYears(from: string, to: string): boolean {
  return from.slice(0, 4) !== to.slice(0, 4);
}
