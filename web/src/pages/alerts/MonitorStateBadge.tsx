/** A monitor's state as a badge with its word, and since when (a disabled or not yet evaluated monitor says so). */
import type { Monitor } from "../../api/alert-types";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime, formatShortDateTime } from "../../lib/format";
import { STATUS_WORDS } from "../../lib/monitor-text";

export function MonitorStateBadge({ monitor }: { monitor: Monitor }) {
  if (!monitor.enabled) return <StatusBadge status="disabled" label="Disabled" />;
  // A new monitor is "ok" only by default until its first evaluation (within a minute): not shown as a verdict.
  if (monitor.state.evaluatedAt === null) return <StatusBadge status="disabled" label="Pending" />;
  const { status, since } = monitor.state;
  return (
    <>
      <StatusBadge status={`monitor-${status}`} label={STATUS_WORDS[status]} />
      {since === null ? null : (
        <span className="muted">
          {" "}
          since{" "}
          <time dateTime={since} title={formatDateTime(since)}>
            {formatShortDateTime(since)}
          </time>
        </span>
      )}
    </>
  );
}
