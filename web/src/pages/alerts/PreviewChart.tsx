/**
 * A monitor definition's figure over the last 72 hours (one window ending at each hour), its thresholds drawn, and
 * in words: how many hours it would have been in alert or warning (without a single figure, only the words: an empty
 * chart says less).
 */
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { MonitorDefinition, MonitorPreview } from "../../api/alert-types";
import { formatShortDateTime } from "../../lib/format";
import { niceCeiling, previewSentence, summarisePreview } from "../../lib/monitor-preview";
import { formatFigure, formatWindow } from "../../lib/monitor-text";
import { axisStyle, tooltipStyle, Y_AXIS_WIDTH } from "../agents/day-axis";

const hourLabel = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
});

function tick(iso: unknown): string {
  if (typeof iso !== "string") return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : hourLabel.format(date);
}

export function PreviewChart({ definition, preview }: { definition: MonitorDefinition; preview: MonitorPreview }) {
  const format = (value: number) => formatFigure(definition.metric, value);
  const points = preview.points.map((point) => ({ end: point.end, figure: point.figure, samples: point.samples }));
  const known = points.flatMap((point) => (point.figure === null ? [] : [point.figure]));
  const thresholds = [
    definition.alertThreshold,
    ...(definition.warningThreshold === undefined ? [] : [definition.warningThreshold]),
  ];
  // From 0 (or the lowest score mean) to a round figure above the highest value and threshold, so both are seen.
  const high = niceCeiling(Math.max(0, ...known, ...thresholds) * 1.05);
  const low = Math.min(0, ...known, ...thresholds);
  const edges = points.length > 1 ? [points[0]?.end ?? "", points[points.length - 1]?.end ?? ""] : [];
  return (
    <figure className="chart">
      <figcaption className="chart__title">
        Figure over the last 72 hours ({formatWindow(definition.windowMinutes)} windows ending each hour, UTC)
      </figcaption>
      <p className="chart__summary" role="status">
        {previewSentence(summarisePreview(preview.points, definition))}
        {preview.note === undefined ? null : <> {preview.note}</>}
      </p>
      {known.length === 0 ? null : (
        <div className="chart__body">
          <ResponsiveContainer width="100%" height={220}>
            <LineChart data={points} margin={{ top: 8, right: 72, bottom: 0, left: 0 }}>
              <CartesianGrid stroke="var(--border)" vertical={false} />
              <XAxis dataKey="end" tick={axisStyle} tickFormatter={tick} ticks={edges} interval={0} />
              <YAxis
                tick={axisStyle}
                tickFormatter={format}
                width={Y_AXIS_WIDTH + 16}
                domain={[low, Math.max(high, low + 1)]}
                tickCount={6}
              />
              <Tooltip
                contentStyle={tooltipStyle}
                labelStyle={{ color: "var(--text)" }}
                labelFormatter={(label) => `Window ending ${formatShortDateTime(String(label))}`}
                formatter={(value, _name, item) => {
                  const samples = (item.payload as { samples?: number } | undefined)?.samples ?? 0;
                  return [`${typeof value === "number" ? format(value) : "no data"} (${samples} samples)`, "Figure"];
                }}
              />
              <ReferenceLine
                y={definition.alertThreshold}
                stroke="var(--danger)"
                strokeDasharray="6 3"
                label={{ value: "Alert", position: "right", fill: "var(--danger)", fontSize: 12 }}
              />
              {definition.warningThreshold === undefined ? null : (
                <ReferenceLine
                  y={definition.warningThreshold}
                  stroke="var(--warning-border)"
                  strokeDasharray="3 3"
                  label={{ value: "Warning", position: "right", fill: "var(--text)", fontSize: 12 }}
                />
              )}
              <Line
                dataKey="figure"
                name="Figure"
                stroke="var(--chart-1)"
                strokeWidth={2}
                dot={{ r: 1.5, fill: "var(--chart-1)", strokeWidth: 0 }}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}
