/** The session list: newest first, one row per session (cards on phones). */
import { Link } from "react-router";
import type { Environment, Session } from "../../api/types";
import { StatusBadge } from "../../components/StatusBadge";
import { withEnvironment } from "../../lib/environment";
import { formatCost, formatDateTime, formatDuration, formatNumber } from "../../lib/format";

export function successLabel(session: Session): string {
  if (session.success === null) return "—";
  return session.success ? "Yes" : "No";
}

export function SessionsTable({ sessions, environment }: { sessions: Session[]; environment: Environment }) {
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption>Sessions ({environment}), newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Agent</th>
            <th scope="col">User</th>
            <th scope="col">Status</th>
            <th scope="col">Success</th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col" className="num">
              Events
            </th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.id}>
              <th scope="row" data-label="Name">
                <Link to={withEnvironment(`/sessions/${encodeURIComponent(session.id)}`, environment)}>
                  {session.name}
                </Link>
              </th>
              <td data-label="Agent">{session.agentName}</td>
              <td data-label="User">{session.userId}</td>
              <td data-label="Status">
                <StatusBadge status={session.status} />
                {session.stale ? <StatusBadge status="stale" label="stale" /> : null}
              </td>
              <td data-label="Success">{successLabel(session)}</td>
              <td data-label="Cost" className="num">
                {formatCost(session.estimatedCost ?? session.eventCost)}
              </td>
              <td data-label="Tokens" className="num">
                {formatNumber(session.totalTokens)}
              </td>
              <td data-label="Duration" className="num">
                {formatDuration(session.durationMs)}
              </td>
              <td data-label="Events" className="num">
                {formatNumber(session.eventCount)}
              </td>
              <td data-label="Created">
                <time dateTime={session.createdAt}>{formatDateTime(session.createdAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
