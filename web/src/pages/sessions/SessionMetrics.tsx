/** The session detail's header: outcome, cost, tokens, duration, counts and times. */
import { Link } from "react-router";
import { useSessionEvents } from "../../api/sessions";
import type { Session } from "../../api/types";
import { JsonView } from "../../components/JsonView";
import { StatusBadge } from "../../components/StatusBadge";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatCost, formatDateTime, formatDuration, formatNumber } from "../../lib/format";
import { lastActedAt } from "../../lib/timeline";
import { agentPathSegment } from "../agents/agent-path";
import { sessionCost } from "./session-cost";

function Metric({ label, value, detail }: { label: string; value: string; detail?: string | undefined }) {
  return (
    <div className="metric">
      <dt>{label}</dt>
      <dd>
        {value}
        {detail === undefined ? null : <span className="metric__detail"> {detail}</span>}
      </dd>
    </div>
  );
}

/**
 * When the run last acted (its latest event or its end) and when the service last heard of it: the two differ for a
 * run delivered late, whose events carry their true times. The events are the waterfall's (one query, one request).
 */
function LastActivity({ session }: { session: Session }) {
  const [environment] = useEnvironment();
  const events = useSessionEvents(environment, session.id);
  const items = events.data?.pages.flatMap((page) => page.items) ?? [];
  const acted = events.isPending && session.completedAt === null ? null : lastActedAt(items, session.completedAt);
  return (
    <>
      <Metric
        label="Last activity"
        value={formatDateTime(acted)}
        detail={events.hasNextPage && session.completedAt === null ? "(of the events loaded)" : undefined}
      />
      <Metric label="Last received" value={formatDateTime(session.lastActivityAt)} />
    </>
  );
}

export function SessionMetrics({ session }: { session: Session }) {
  const [environment] = useEnvironment();
  const toolCalls = Object.values(session.toolCalls).reduce((sum, count) => sum + count, 0);
  const toolErrors = Object.values(session.toolErrors).reduce((sum, count) => sum + count, 0);
  const cost = sessionCost(session);
  return (
    <section aria-label="Session metrics" className="metrics-section">
      <p className="session-status">
        <StatusBadge status={session.status} />
        {session.status === "completed" && session.success === false ? (
          <StatusBadge status="failed" label="not successful" />
        ) : null}
        {session.stale ? <StatusBadge status="stale" label="stale: no activity for a while" /> : null}
        <span>
          Agent{" "}
          <Link to={withEnvironment(`/agents/${agentPathSegment(session.agentName)}`, environment)}>
            {session.agentName}
          </Link>{" "}
          · user <strong>{session.userId}</strong> · {session.environment} ·{" "}
          <code className="muted" title="Session id">
            {session.id}
          </code>
        </span>
      </p>
      {session.failureReason === null ? null : (
        <p className="failure" role="note">
          <strong>Failure reason:</strong> {session.failureReason}
        </p>
      )}
      <dl className="metrics">
        <Metric label="Cost" value={formatCost(cost.amount)} detail={cost.source} />
        <Metric
          label="Tokens"
          value={formatNumber(session.totalTokens)}
          detail={
            session.promptTokens === null && session.completionTokens === null
              ? undefined
              : `(${formatNumber(session.promptTokens)} in, ${formatNumber(session.completionTokens)} out)`
          }
        />
        <Metric label="Duration" value={formatDuration(session.durationMs)} />
        <Metric label="Events" value={formatNumber(session.eventCount)} />
        <Metric label="Tool calls / errors" value={`${formatNumber(toolCalls)} / ${formatNumber(toolErrors)}`} />
        <Metric label="Started" value={formatDateTime(session.createdAt)} />
        <Metric label="Ended" value={formatDateTime(session.completedAt)} />
        <LastActivity session={session} />
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
