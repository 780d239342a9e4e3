/** The agents' stats period (in the URL as `days`), as the whole UTC days the API counts, with empty days filled. */
import type { AgentStats, StatsSummary } from "../api/types";

export const PERIODS = [7, 14, 30, 90, 180, 366] as const;
export const DEFAULT_PERIOD = 30;
const DAY_MS = 86_400_000;

export function parsePeriod(value: string | null): number {
  const days = Number(value);
  return (PERIODS as readonly number[]).includes(days) ? days : DEFAULT_PERIOD;
}

export function periodRange(days: number, now = Date.now()): { from: string; to: string } {
  const to = new Date(now).toISOString().slice(0, 10);
  const from = new Date(Date.parse(to) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}

export interface DayPoint {
  day: string;
  sessions: number;
  successRate: number | null;
  cost: number;
  tokens: number;
}

function point(day: string, summary: StatsSummary | undefined): DayPoint {
  return {
    day,
    sessions: summary?.sessions ?? 0,
    successRate: summary?.successRate === null || summary?.successRate === undefined ? null : summary.successRate * 100,
    cost: (summary?.reportedCost ?? 0) || (summary?.eventCost ?? 0),
    tokens: summary?.totalTokens ?? 0,
  };
}

/** One point per day of the period (the API sends only the days with data). */
export function dailySeries(stats: AgentStats): DayPoint[] {
  const byDay = new Map(stats.days.map((day) => [day.day, day]));
  const points: DayPoint[] = [];
  for (let time = Date.parse(stats.from); time <= Date.parse(stats.to); time += DAY_MS) {
    const day = new Date(time).toISOString().slice(0, 10);
    points.push(point(day, byDay.get(day)));
  }
  return points;
}
