/**
 * Session durations as numbers: the mean and the percentiles the stats API gives (p50, p95, p99), each with the
 * same duration format. When the period holds durations counted before the fine histogram existed, the API
 * answers from coarse buckets (`precision: "coarse"`) and the figures say so.
 */
import type { StatsSummary } from "../api/types";
import { formatDuration } from "../lib/format";

/** The figures shown, in this order, when the API gives them. */
const FIGURES = [
  { key: "p50", label: "p50", description: "half the sessions took at most this long" },
  { key: "p95", label: "p95", description: "95% took at most this long" },
  { key: "p99", label: "p99", description: "99% took at most this long" },
  { key: "mean", label: "mean", description: "the average duration" },
] as const;

export function DurationPercentiles({ durations }: { durations: StatsSummary["durationMs"] }) {
  const shown = FIGURES.filter((figure) => typeof durations[figure.key] === "number");
  return (
    <section className="durations" aria-labelledby="durations-title">
      <h2 id="durations-title" className="durations__title">
        Session duration
      </h2>
      {shown.length === 0 ? (
        <p className="muted">No session of this period reported a duration.</p>
      ) : (
        <>
          <dl className="durations__list">
            {shown.map((figure) => (
              <div key={figure.key} className="durations__figure" title={figure.description}>
                <dt>{figure.label}</dt>
                <dd>{formatDuration(durations[figure.key])}</dd>
              </div>
            ))}
          </dl>
          {durations.precision === "coarse" && (
            <p className="muted">
              Percentiles are upper bounds of coarse buckets: this period includes days counted before durations were
              measured finely.
            </p>
          )}
        </>
      )}
    </section>
  );
}
