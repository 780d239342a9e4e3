/** One per-day chart (recharts) in a captioned figure. */
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { estimatedLabelWidth, labelledIndices } from "../../lib/axis-labels";
import { type DayPoint, dayTick, spansYears } from "../../lib/stats-period";
import { useElementWidth } from "../../lib/use-element-width";

export interface DailyChartProps {
  title: string;
  data: DayPoint[];
  field: "sessions" | "successRate" | "cost" | "tokens";
  kind: "bar" | "line";
  format: (value: number) => string;
  color: string;
}

const TICK_FONT_PX = 12;
const axis = { stroke: "var(--muted)", fontSize: TICK_FONT_PX };
const Y_AXIS_WIDTH = 56;
const tooltipStyle = { background: "var(--surface)", border: "1px solid var(--border)", color: "var(--text)" };

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

export function DailyChart({ title, data, field, kind, format, color }: DailyChartProps) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const tick = (value: number) => format(value);
  const withYear = spansYears(data[0]?.day ?? "", data[data.length - 1]?.day ?? "");
  const dayLabel = (day: string) => dayTick(day, withYear);
  const labelWidth = Math.max(0, ...data.map((point) => estimatedLabelWidth(dayLabel(point.day), TICK_FONT_PX)));
  // The last label is centred on the plot's end (a line's last point) or near it: half of it stands past the plot,
  // in the right margin (the SVG cuts what goes further). The first one's half stands over the y axis's room.
  const margin = { top: 8, right: Math.max(16, Math.ceil(labelWidth / 2)), bottom: 0, left: 0 };
  const plotWidth = width === undefined ? undefined : width - Y_AXIS_WIDTH - margin.left - margin.right;
  const xAxis = (
    <XAxis
      dataKey="day"
      tick={axis}
      tickFormatter={dayLabel}
      ticks={labelledDays(
        data.map((point) => point.day),
        kind,
        plotWidth,
        labelWidth,
      )}
      interval={0}
    />
  );
  // Every day with a value is drawn as a point too: a day alone between empty days is a point, not a 0-length line.
  const dot = { r: data.length > 90 ? 1.5 : 3, fill: color, strokeWidth: 0 };
  const tooltip = (
    <Tooltip
      contentStyle={tooltipStyle}
      labelStyle={{ color: "var(--text)" }}
      labelFormatter={(day) => (typeof day === "string" ? dayTick(day, true) : String(day ?? ""))}
      formatter={(value) => (typeof value === "number" ? format(value) : String(value ?? ""))}
    />
  );
  return (
    <figure className="chart">
      <figcaption className="chart__title">{title}</figcaption>
      <div className="chart__body" ref={ref}>
        <ResponsiveContainer width="100%" height={220}>
          {kind === "bar" ? (
            <BarChart data={data} margin={margin}>
              <CartesianGrid stroke="var(--border)" vertical={false} />
              {xAxis}
              {/* Counts have whole ticks; costs share the axis's precision so ticks do not jump between formats. */}
              <YAxis
                tick={axis}
                tickFormatter={tick}
                width={Y_AXIS_WIDTH}
                allowDecimals={field !== "sessions" && field !== "tokens"}
              />
              {tooltip}
              <Bar dataKey={field} name={title} fill={color} isAnimationActive={false} />
            </BarChart>
          ) : (
            <LineChart data={data} margin={margin}>
              <CartesianGrid stroke="var(--border)" vertical={false} />
              {xAxis}
              <YAxis
                tick={axis}
                tickFormatter={tick}
                width={Y_AXIS_WIDTH}
                domain={field === "successRate" ? [0, 100] : ["auto", "auto"]}
              />
              {tooltip}
              <Line
                dataKey={field}
                name={title}
                stroke={color}
                strokeWidth={2}
                dot={dot}
                connectNulls
                isAnimationActive={false}
              />
            </LineChart>
          )}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
