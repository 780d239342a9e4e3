/**
 * A definition's figure over the last 72 hours, for the console's form and sparklines: one point per window ending
 * at each whole hour, read from the series' hourly points (readSeriesHours: one Query per 7 days, ≤ 240 items), so a
 * preview costs a few reads whatever its window. A window that is not a whole number of hours is previewed over the
 * whole hours that hold it (the note says so); the evaluator reads the exact window.
 */
import type { SeriesPoint, SeriesTotals } from "../domain/alert-series.js";
import type { Environment } from "../domain/api-key.js";
import type { MonitorDefinition } from "../domain/monitor.js";
import { EMPTY_TOTALS, monitorReading, monitorSeries, sumTotals } from "../domain/monitor-figure.js";
import { isNoData } from "../domain/monitor-state-machine.js";
import { readSeriesHours } from "../store/alerts/series-store.js";

const HOUR_MS = 3_600_000;
const POINTS = 72;
/** The longest span one series read covers. */
const READ_SPAN_MS = 7 * 24 * HOUR_MS;

export interface PreviewPoint {
  readonly start: string;
  readonly end: string;
  /** Null where the window had no data (fewer samples than `minSessions`, or nothing to compute from). */
  readonly figure: number | null;
  readonly samples: number;
}

export interface MonitorPreview {
  readonly points: PreviewPoint[];
  readonly note?: string;
}

async function hourlyTotals(
  query: Parameters<typeof readSeriesHours>[0],
  nowMs: number,
): Promise<Map<number, SeriesTotals>> {
  const byHour = new Map<number, SeriesTotals>();
  const spans: Promise<readonly SeriesPoint[]>[] = [];
  for (let from = query.start.getTime(); from < query.end.getTime(); from += READ_SPAN_MS) {
    const to = Math.min(from + READ_SPAN_MS, query.end.getTime());
    spans.push(readSeriesHours({ ...query, start: new Date(from), end: new Date(to) }, nowMs));
  }
  for (const points of await Promise.all(spans)) {
    for (const point of points) byHour.set(point.start.getTime(), point);
  }
  return byHour;
}

export async function previewMonitor(
  orgId: string,
  environment: Environment,
  definition: MonitorDefinition,
  now: Date,
): Promise<MonitorPreview> {
  const lastEnd = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const windowHours = Math.ceil(definition.windowMinutes / 60);
  const firstEnd = lastEnd - (POINTS - 1) * HOUR_MS;
  const series = monitorSeries(definition.metric, definition.filters);
  const range = {
    orgId,
    environment,
    agent: series.agent,
    start: new Date(firstEnd - windowHours * HOUR_MS),
    end: new Date(lastEnd),
  };
  const [main, label] = await Promise.all([
    hourlyTotals({ ...range, facet: series.facet }, now.getTime()),
    series.labelFacet === undefined ? undefined : hourlyTotals({ ...range, facet: series.labelFacet }, now.getTime()),
  ]);
  const windowOf = (byHour: Map<number, SeriesTotals>, end: number) =>
    sumTotals(
      Array.from({ length: windowHours }, (_, index) => byHour.get(end - (index + 1) * HOUR_MS) ?? EMPTY_TOTALS),
    );
  const points: PreviewPoint[] = [];
  for (let end = firstEnd; end <= lastEnd; end += HOUR_MS) {
    const reading = monitorReading(
      definition.metric,
      definition.filters,
      windowOf(main, end),
      label === undefined ? undefined : windowOf(label, end),
    );
    points.push({
      start: new Date(end - windowHours * HOUR_MS).toISOString(),
      end: new Date(end).toISOString(),
      figure: isNoData(definition, reading) ? null : reading.figure,
      samples: reading.samples,
    });
  }
  const note =
    definition.windowMinutes % 60 === 0
      ? undefined
      : `Previewed over ${windowHours}-hour windows (the series' hourly points); the monitor itself is evaluated over exactly ${definition.windowMinutes} minutes`;
  return note === undefined ? { points } : { points, note };
}
