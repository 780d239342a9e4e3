/** One per-day chart (recharts) in a captioned figure. */
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { DayPoint } from "../../lib/stats-period";
import { useElementWidth } from "../../lib/use-element-width";
import { axisStyle as axis, dayAxisLayout, tooltipDay, tooltipStyle, Y_AXIS_WIDTH } from "./day-axis";

export interface DailyChartProps {
  title: string;
  data: DayPoint[];
  field: "sessions" | "successRate" | "cost" | "tokens";
  kind: "bar" | "line";
  format: (value: number) => string;
  color: string;
}

export function DailyChart({ title, data, field, kind, format, color }: DailyChartProps) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const tick = (value: number) => format(value);
  const { dayLabel, ticks, margin } = dayAxisLayout(
    data.map((point) => point.day),
    kind,
    width,
  );
  const xAxis = <XAxis dataKey="day" tick={axis} tickFormatter={dayLabel} ticks={ticks} interval={0} />;
  // Every day with a value is drawn as a point too: a day alone between empty days is a point, not a 0-length line.
  const dot = { r: data.length > 90 ? 1.5 : 3, fill: color, strokeWidth: 0 };
  const tooltip = (
    <Tooltip
      contentStyle={tooltipStyle}
      labelStyle={{ color: "var(--text)" }}
      labelFormatter={tooltipDay}
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
