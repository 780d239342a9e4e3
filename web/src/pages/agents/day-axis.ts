/**
 * The x axis of a per-day chart (recharts): which days carry a label, and the margins that keep the first and the
 * last label inside the chart, from the chart's measured width. Shared by the agent page's charts.
 */
import { estimatedLabelWidth, labelledIndices } from "../../lib/axis-labels";
import { dayTick, spansYears } from "../../lib/stats-period";

export const TICK_FONT_PX = 12;
export const axisStyle = { stroke: "var(--muted)", fontSize: TICK_FONT_PX };
export const Y_AXIS_WIDTH = 56;
export const tooltipStyle = { background: "var(--surface)", border: "1px solid var(--border)", color: "var(--text)" };

/**
 * The days labelled under the x axis: the first, the last and every Nth between, as many as the plot's width holds
 * without two touching (recharts centres each label on its bar, or on its point of a line).
 */
function labelledDays(
  days: readonly string[],
  kind: "bar" | "line",
  plotWidth: number | undefined,
  labelWidth: number,
): string[] {
  const edges = days.length <= 1 ? [...days] : [days[0] ?? "", days[days.length - 1] ?? ""];
  if (plotWidth === undefined) return edges;
  const pitch = kind === "bar" ? plotWidth / days.length : plotWidth / Math.max(1, days.length - 1);
  return labelledIndices(days.length, pitch, labelWidth).flatMap((index) => days.slice(index, index + 1));
}

export interface DayAxisLayout {
  dayLabel: (day: string) => string;
  ticks: string[];
  margin: { top: number; right: number; bottom: number; left: number };
}

export function dayAxisLayout(days: readonly string[], kind: "bar" | "line", width: number | undefined): DayAxisLayout {
  const withYear = spansYears(days[0] ?? "", days[days.length - 1] ?? "");
  const dayLabel = (day: string) => dayTick(day, withYear);
  const labelWidth = Math.max(0, ...days.map((day) => estimatedLabelWidth(dayLabel(day), TICK_FONT_PX)));
  // The last label is centred on the plot's end (a line's last point) or near it: half of it stands past the plot,
  // in the right margin (the SVG cuts what goes further). The first one's half stands over the y axis's room.
  const margin = { top: 8, right: Math.max(16, Math.ceil(labelWidth / 2)), bottom: 0, left: 0 };
  const plotWidth = width === undefined ? undefined : width - Y_AXIS_WIDTH - margin.left - margin.right;
  return { dayLabel, ticks: labelledDays(days, kind, plotWidth, labelWidth), margin };
}

/** A tooltip's heading: the day with its year. */
export function tooltipDay(day: unknown): string {
  return typeof day === "string" ? dayTick(day, true) : String(day ?? "");
}
