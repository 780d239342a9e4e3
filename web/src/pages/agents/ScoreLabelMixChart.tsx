/**
 * A score name's daily label mix as stacked bars: a colour per charted label ("Other" grey), a legend with each
 * label's count over the period, the count per label in the tooltip and the figures per day as a table.
 */
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatNumber, plural } from "../../lib/format";
import type { LabelMix } from "../../lib/score-series";
import { dayTick } from "../../lib/stats-period";
import { useElementWidth } from "../../lib/use-element-width";
import { axisStyle, dayAxisLayout, tooltipDay, tooltipStyle, Y_AXIS_WIDTH } from "./day-axis";

/** A label's colour by its place in the legend; "Other" is grey. */
const LABEL_COLOURS = [1, 2, 3, 4, 5, 6, 7, 8].map((index) => `var(--chart-${index})`);
const OTHER_COLOUR = "var(--chart-other)";

interface LabelMixTooltipProps {
  active: boolean | undefined;
  payload: readonly { payload?: unknown }[] | undefined;
  label: unknown;
  mix: LabelMix;
}

function LabelMixTooltip({ active, payload, label, mix }: LabelMixTooltipProps) {
  const point = payload?.[0]?.payload as LabelMix["points"][number] | undefined;
  if (active !== true || point === undefined || point.total === 0) return null;
  return (
    <div className="chart__tooltip" style={tooltipStyle}>
      <p className="chart__tooltip-day">
        {tooltipDay(label)}: {plural(point.total, "score")}
      </p>
      <ul>
        {mix.labels
          .filter((entry) => (point.counts[entry.key] ?? 0) > 0)
          .map((entry) => (
            <li key={entry.key}>
              {entry.label}: {formatNumber(point.counts[entry.key] ?? 0)}
            </li>
          ))}
      </ul>
    </div>
  );
}

export function LabelMixChart({ mix, title }: { mix: LabelMix; title: string }) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const { dayLabel, ticks, margin } = dayAxisLayout(
    mix.points.map((point) => point.day),
    "bar",
    width,
  );
  const colour = (index: number, key: string) =>
    key === "label-other" ? OTHER_COLOUR : (LABEL_COLOURS[index] ?? OTHER_COLOUR);
  const scored = mix.points.filter((point) => point.total > 0);
  return (
    <>
      <div className="chart__body" ref={ref}>
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={mix.points} margin={margin}>
            <CartesianGrid stroke="var(--border)" vertical={false} />
            <XAxis dataKey="day" tick={axisStyle} tickFormatter={dayLabel} ticks={ticks} interval={0} />
            <YAxis tick={axisStyle} width={Y_AXIS_WIDTH} allowDecimals={false} />
            <Tooltip
              content={({ active, payload, label }) => (
                <LabelMixTooltip active={active} payload={payload} label={label} mix={mix} />
              )}
            />
            {mix.labels.map((entry, index) => (
              <Bar
                key={entry.key}
                dataKey={(point: LabelMix["points"][number]) => point.counts[entry.key] ?? 0}
                name={entry.label}
                stackId="labels"
                fill={colour(index, entry.key)}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <ul className="chart__legend" aria-label={`Labels of ${title}`}>
        {mix.labels.map((entry, index) => (
          <li key={entry.key} className="chart__legend-item">
            <span className="chart__swatch" style={{ background: colour(index, entry.key) }} aria-hidden="true" />
            {entry.label} <span className="muted">({formatNumber(entry.total)})</span>
          </li>
        ))}
      </ul>
      <details className="chart__table">
        <summary>Figures per day</summary>
        <div className="table-scroll">
          <table className="table table--compact">
            <caption className="visually-hidden">{title}: figures per day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {mix.labels.map((entry) => (
                  <th scope="col" className="num" key={entry.key}>
                    {entry.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {scored.map((point) => (
                <tr key={point.day}>
                  <th scope="row">{dayTick(point.day, true)}</th>
                  {mix.labels.map((entry) => (
                    <td className="num" key={entry.key}>
                      {formatNumber(point.counts[entry.key] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}
