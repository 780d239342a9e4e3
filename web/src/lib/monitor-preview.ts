/**
 * What a monitor's preview says: in how many of the last 72 hourly windows its figure would have been in warning or
 * in alert, and in how many there was no data (fewer samples than its minimum). Pure.
 */
import type { MonitorDefinition, MonitorStatus, PreviewPoint } from "../api/alert-types";

export type Thresholds = Pick<MonitorDefinition, "comparison" | "alertThreshold" | "warningThreshold">;

/** The state a figure puts a monitor in, by its thresholds (`null`: no data). */
export function statusOf(figure: number | null, thresholds: Thresholds): MonitorStatus | null {
  if (figure === null) return null;
  const crosses = (threshold: number) => (thresholds.comparison === "above" ? figure > threshold : figure < threshold);
  if (crosses(thresholds.alertThreshold)) return "alert";
  if (thresholds.warningThreshold !== undefined && crosses(thresholds.warningThreshold)) return "warning";
  return "ok";
}

export interface PreviewSummary {
  windows: number;
  alert: number;
  warning: number;
  noData: number;
}

export function summarisePreview(points: readonly PreviewPoint[], thresholds: Thresholds): PreviewSummary {
  const summary: PreviewSummary = { windows: points.length, alert: 0, warning: 0, noData: 0 };
  for (const point of points) {
    const status = statusOf(point.figure, thresholds);
    if (status === null) summary.noData += 1;
    else if (status !== "ok") summary[status] += 1;
  }
  return summary;
}

/** "In alert 3 of the last 72 hours, in warning 5; no data in 10." */
export function previewSentence(summary: PreviewSummary): string {
  if (summary.windows === 0) return "No windows to show.";
  if (summary.noData === summary.windows) return `No data in any of the last ${summary.windows} hours.`;
  const parts = [`In alert ${summary.alert} of the last ${summary.windows} hours`];
  if (summary.warning > 0) parts.push(`in warning ${summary.warning}`);
  const sentence = parts.join(", ");
  return summary.noData > 0 ? `${sentence}; no data in ${summary.noData}.` : `${sentence}.`;
}

/** The smallest of 1, 2, 2.5, 5 × a power of ten at or above `value` (a chart's top that reads as a round figure). */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((factor) => factor * power >= value * (1 - 1e-12)) ?? 10;
  return step * power;
}
