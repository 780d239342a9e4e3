/** A monitor's state as a badge with its word, and since when (a disabled monitor says so). */
import type { Monitor } from "../../api/alert-types";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime, formatShortDateTime } from "../../lib/format";
import { STATUS_WORDS } from "../../lib/monitor-text";

export function MonitorStateBadge({ monitor }: { monitor: Monitor }) {
  if (!monitor.enabled) return <StatusBadge status="disabled" label="Disabled" />;
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
