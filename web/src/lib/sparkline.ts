/**
 * A sparkline's geometry: the figures of a series as SVG polylines in a box (a gap where a figure is missing),
 * scaled with the threshold inside the range so the line shows how near it came. Pure.
 */

export interface SparklineGeometry {
  /** One "x,y x,y …" per run of figures without a gap (a lone figure: a point, drawn as a dot). */
  lines: string[];
  dots: { x: number; y: number }[];
  /** The threshold's height in the box, or null without one. */
  thresholdY: number | null;
}

export function sparklineGeometry(
  figures: readonly (number | null)[],
  width: number,
  height: number,
  threshold: number | null = null,
  pad = 2,
): SparklineGeometry {
  const known = figures.filter((figure): figure is number => figure !== null && Number.isFinite(figure));
  const values = threshold === null ? known : [...known, threshold];
  if (values.length === 0) return { lines: [], dots: [], thresholdY: null };
  const low = Math.min(0, ...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const y = (value: number) => Math.round((pad + (height - 2 * pad) * (1 - (value - low) / span)) * 10) / 10;
  const step = figures.length > 1 ? (width - 2 * pad) / (figures.length - 1) : 0;
  const x = (index: number) => Math.round((pad + index * step) * 10) / 10;
  const runs: { x: number; y: number }[][] = [];
  let run: { x: number; y: number }[] = [];
  figures.forEach((figure, index) => {
    if (figure === null || !Number.isFinite(figure)) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push({ x: x(index), y: y(figure) });
  });
  if (run.length > 0) runs.push(run);
  return {
    lines: runs.filter((points) => points.length > 1).map((points) => points.map((p) => `${p.x},${p.y}`).join(" ")),
    dots: runs.filter((points) => points.length === 1).flat(),
    thresholdY: threshold === null ? null : y(threshold),
  };
}
