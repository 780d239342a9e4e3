/** The session detail's header: outcome, cost, tokens, duration, counts and times. */
import type { Session } from "../../api/types";
import { JsonView } from "../../components/JsonView";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCost, formatDateTime, formatDuration, formatNumber } from "../../lib/format";
import { successLabel } from "./SessionsTable";

function Metric({ label, value }: { label: string; value: string }) {
  return (
    <div className="metric">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

export function SessionMetrics({ session }: { session: Session }) {
  const toolCalls = Object.values(session.toolCalls).reduce((sum, count) => sum + count, 0);
  const toolErrors = Object.values(session.toolErrors).reduce((sum, count) => sum + count, 0);
  return (
    <section aria-label="Session metrics" className="metrics-section">
      <p className="session-status">
        <StatusBadge status={session.status} />
        {session.stale ? <StatusBadge status="stale" label="stale: no activity for a while" /> : null}
        <span>
          Agent <strong>{session.agentName}</strong> · user <strong>{session.userId}</strong> · {session.environment}
        </span>
      </p>
      {session.failureReason === null ? null : (
        <p className="failure" role="note">
          <strong>Failure reason:</strong> {session.failureReason}
        </p>
      )}
      <dl className="metrics">
        <Metric label="Success" value={successLabel(session)} />
        <Metric label="Cost (reported)" value={formatCost(session.estimatedCost)} />
        <Metric label="Cost (events)" value={formatCost(session.eventCost)} />
        <Metric label="Tokens" value={formatNumber(session.totalTokens)} />
        <Metric
          label="Prompt / completion"
          value={`${formatNumber(session.promptTokens)} / ${formatNumber(session.completionTokens)}`}
        />
        <Metric label="Duration" value={formatDuration(session.durationMs)} />
        <Metric label="Events" value={formatNumber(session.eventCount)} />
        <Metric label="Tool calls / errors" value={`${formatNumber(toolCalls)} / ${formatNumber(toolErrors)}`} />
        <Metric label="Created" value={formatDateTime(session.createdAt)} />
        <Metric label="Completed" value={formatDateTime(session.completedAt)} />
        <Metric label="Last activity" value={formatDateTime(session.lastActivityAt)} />
        {Object.entries(session.customMetrics ?? {}).map(([name, value]) => (
          <Metric key={name} label={name} value={formatNumber(value)} />
        ))}
      </dl>
      {session.metadata === null || Object.keys(session.metadata).length === 0 ? null : (
        <details className="metadata">
          <summary>Metadata</summary>
          <JsonView value={session.metadata} label="Session metadata" />
        </details>
      )}
    </section>
  );
}
