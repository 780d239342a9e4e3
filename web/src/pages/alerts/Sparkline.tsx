/** A monitor's figure over the last 72 hours as a small line, its alert threshold dashed; in words for screen readers. */

import type { Monitor } from "../../api/alert-types";
import { useMonitorPreview } from "../../api/alerts";
import { formatFigure } from "../../lib/monitor-text";
import { sparklineGeometry } from "../../lib/sparkline";
import { definitionOf } from "./monitor-form";

const WIDTH = 120;
const HEIGHT = 28;

export function MonitorSparkline({ monitor }: { monitor: Monitor }) {
  const preview = useMonitorPreview(monitor.environment, definitionOf(monitor));
  if (preview.isPending) return <span className="muted sparkline__note">…</span>;
  if (preview.isError) return <span className="muted sparkline__note">No preview</span>;
  const figures = preview.data.points.map((point) => point.figure);
  const known = figures.filter((figure): figure is number => figure !== null);
  if (known.length === 0) return <span className="muted sparkline__note">No data in 72 h</span>;
  const geometry = sparklineGeometry(figures, WIDTH, HEIGHT, monitor.alertThreshold);
  const label = `Last 72 h: from ${formatFigure(monitor.metric, known[0])} to ${formatFigure(
    monitor.metric,
    known[known.length - 1],
  )}, highest ${formatFigure(monitor.metric, Math.max(...known))}; alert at ${formatFigure(
    monitor.metric,
    monitor.alertThreshold,
  )}`;
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      {geometry.thresholdY === null ? null : (
        <line className="sparkline__threshold" x1={0} x2={WIDTH} y1={geometry.thresholdY} y2={geometry.thresholdY} />
      )}
      {geometry.lines.map((points) => (
        <polyline key={points} className="sparkline__line" points={points} />
      ))}
      {geometry.dots.map((dot) => (
        <circle key={`${dot.x},${dot.y}`} className="sparkline__dot" cx={dot.x} cy={dot.y} r={1.5} />
      ))}
    </svg>
  );
}
