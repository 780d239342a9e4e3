/** A score name's daily mean (numbers) or % true (yes/no) as a line, with its figures per day as a table. */
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatNumber, plural } from "../../lib/format";
import { formatMean } from "../../lib/score-figures";
import type { ScoreMeanPoint } from "../../lib/score-series";
import { dayTick } from "../../lib/stats-period";
import { useElementWidth } from "../../lib/use-element-width";
import { axisStyle, dayAxisLayout, tooltipDay, tooltipStyle, Y_AXIS_WIDTH } from "./day-axis";

export function MeanChart({
  points,
  kind,
  title,
}: {
  points: ScoreMeanPoint[];
  kind: "numeric" | "boolean";
  title: string;
}) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const { dayLabel, ticks, margin } = dayAxisLayout(
    points.map((point) => point.day),
    "line",
    width,
  );
  const format = kind === "boolean" ? (value: number) => `${Math.round(value)}%` : formatMean;
  const color = kind === "boolean" ? "var(--chart-2)" : "var(--chart-1)";
  const dot = { r: points.length > 90 ? 1.5 : 3, fill: color, strokeWidth: 0 };
  const scored = points.filter((point) => point.count > 0);
  return (
    <>
      <div className="chart__body" ref={ref}>
        <ResponsiveContainer width="100%" height={200}>
          <LineChart data={points} margin={margin}>
            <CartesianGrid stroke="var(--border)" vertical={false} />
            <XAxis dataKey="day" tick={axisStyle} tickFormatter={dayLabel} ticks={ticks} interval={0} />
            <YAxis
              tick={axisStyle}
              tickFormatter={format}
              width={Y_AXIS_WIDTH}
              domain={kind === "boolean" ? [0, 100] : ["auto", "auto"]}
            />
            <Tooltip
              contentStyle={tooltipStyle}
              labelStyle={{ color: "var(--text)" }}
              labelFormatter={tooltipDay}
              formatter={(value, _name, item) => {
                const count = (item.payload as ScoreMeanPoint | undefined)?.count ?? 0;
                return [
                  `${typeof value === "number" ? format(value) : "—"} (${plural(count, "score")})`,
                  kind === "boolean" ? "True" : "Mean",
                ];
              }}
            />
            <Line
              dataKey="value"
              name={title}
              stroke={color}
              strokeWidth={2}
              dot={dot}
              connectNulls
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <details className="chart__table">
        <summary>Figures per day</summary>
        <table className="table table--compact">
          <caption className="visually-hidden">{title}: figures per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" className="num">
                {kind === "boolean" ? "True" : "Mean"}
              </th>
              <th scope="col" className="num">
                Scores
              </th>
            </tr>
          </thead>
          <tbody>
            {scored.map((point) => (
              <tr key={point.day}>
                <th scope="row">{dayTick(point.day, true)}</th>
                <td className="num">{point.value === null ? "—" : format(point.value)}</td>
                <td className="num">{formatNumber(point.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}
