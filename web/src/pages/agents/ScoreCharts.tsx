/**
 * An agent's scores over the period: one chart per score name (as many as the stats answer, and said so when they
 * left names out). Numbers as the daily mean, yes/no as the daily % true, labels as the daily mix in stacked bars
 * with a legend; each chart has its figures per day as a table, and links to the sessions with that score.
 */
import { Link } from "react-router";
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { AgentStats, Environment } from "../../api/types";
import { EmptyState } from "../../components/EmptyState";
import { formatNumber, plural } from "../../lib/format";
import {
  type LabelMix,
  labelMixSeries,
  type ScoreMeanPoint,
  type ScoreNameStats,
  scoreChartKind,
  scoreMeanSeries,
} from "../../lib/score-series";
import { sessionsLink } from "../../lib/session-filters";
import { dayTick } from "../../lib/stats-period";
import { useElementWidth } from "../../lib/use-element-width";
import { axisStyle, dayAxisLayout, tooltipDay, tooltipStyle, Y_AXIS_WIDTH } from "./day-axis";

/** A label's colour by its place in the legend; "Other" is grey. */
const LABEL_COLOURS = [1, 2, 3, 4, 5, 6, 7, 8].map((index) => `var(--chart-${index})`);
const OTHER_COLOUR = "var(--chart-other)";

/** A mean as read: up to three decimals ("0.833"), a share as a whole percent. */
function formatMean(value: number): string {
  return formatNumber(Math.round(value * 1000) / 1000);
}

export function ScoreCharts({ stats, environment }: { stats: AgentStats; environment: Environment }) {
  return (
    <section className="section" aria-labelledby="agent-scores-heading">
      <h2 id="agent-scores-heading">Scores</h2>
      {stats.scores.length === 0 ? (
        <EmptyState title="No scores in this period." />
      ) : (
        <>
          {stats.scoresTruncated ? (
            <p className="muted" role="note">
              The {stats.scores.length} most given score names; this agent has more in this period, not shown.
            </p>
          ) : null}
          <div className="charts">
            {stats.scores.map((score) => (
              <ScoreChart key={score.name} score={score} stats={stats} environment={environment} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}

function ScoreChart({
  score,
  stats,
  environment,
}: {
  score: ScoreNameStats;
  stats: AgentStats;
  environment: Environment;
}) {
  const kind = scoreChartKind(score);
  const sessions = sessionsLink(
    { agentName: stats.agentName, from: stats.from, to: stats.to, scoreName: score.name },
    environment,
  );
  const summary =
    kind === "numeric"
      ? `${plural(score.numeric?.count ?? 0, "score")}, mean ${formatMean(score.numeric?.mean ?? 0)}`
      : kind === "boolean"
        ? `${plural(score.boolean?.count ?? 0, "score")}, ${Math.round((score.boolean?.trueShare ?? 0) * 100)}% true`
        : `${plural(score.count, "score")}`;
  const title = `${score.name}: ${kind === "numeric" ? "mean per day" : kind === "boolean" ? "% true per day" : "labels per day"}`;
  return (
    <figure className="chart">
      <figcaption className="chart__title">
        {title}
        <span className="chart__summary muted">
          {summary} · <Link to={sessions}>sessions with this score</Link>
        </span>
      </figcaption>
      {kind === "categorical" ? (
        <LabelMixChart mix={labelMixSeries(score, stats.from, stats.to)} title={title} />
      ) : (
        <MeanChart points={scoreMeanSeries(score, kind, stats.from, stats.to)} kind={kind} title={title} />
      )}
    </figure>
  );
}

function MeanChart({ points, kind, title }: { points: ScoreMeanPoint[]; kind: "numeric" | "boolean"; title: string }) {
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

function LabelMixChart({ mix, title }: { mix: LabelMix; title: string }) {
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
