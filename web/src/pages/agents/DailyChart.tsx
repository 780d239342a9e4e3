/** One per-day chart (recharts) in a captioned figure. */
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type DayPoint, dayTick, spansYears } from "../../lib/stats-period";

export interface DailyChartProps {
  title: string;
  data: DayPoint[];
  field: "sessions" | "successRate" | "cost" | "tokens";
  kind: "bar" | "line";
  format: (value: number) => string;
  color: string;
}

const axis = { stroke: "var(--muted)", fontSize: 12 };
const tooltipStyle = { background: "var(--surface)", border: "1px solid var(--border)", color: "var(--text)" };

export function DailyChart({ title, data, field, kind, format, color }: DailyChartProps) {
  const tick = (value: number) => format(value);
  const withYear = spansYears(data[0]?.day ?? "", data[data.length - 1]?.day ?? "");
  const dayLabel = (day: string) => dayTick(day, withYear);
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
      <div className="chart__body">
        <ResponsiveContainer width="100%" height={220}>
          {kind === "bar" ? (
            <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid stroke="var(--border)" vertical={false} />
              <XAxis dataKey="day" tick={axis} tickFormatter={dayLabel} minTickGap={16} />
              {/* Counts have whole ticks; costs share the axis's precision so ticks do not jump between formats. */}
              <YAxis
                tick={axis}
                tickFormatter={tick}
                width={56}
                allowDecimals={field !== "sessions" && field !== "tokens"}
              />
              {tooltip}
              <Bar dataKey={field} name={title} fill={color} isAnimationActive={false} />
            </BarChart>
          ) : (
            <LineChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid stroke="var(--border)" vertical={false} />
              <XAxis dataKey="day" tick={axis} tickFormatter={dayLabel} minTickGap={16} />
              <YAxis
                tick={axis}
                tickFormatter={tick}
                width={56}
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
