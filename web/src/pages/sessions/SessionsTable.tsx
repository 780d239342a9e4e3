/** The session list: newest first, one line per session at desktop widths (cards on phones). */
import { Link } from "react-router";
import type { Environment, Session } from "../../api/types";
import { StatusBadge } from "../../components/StatusBadge";
import { withEnvironment } from "../../lib/environment";
import {
  formatCompact,
  formatCost,
  formatDateTime,
  formatDuration,
  formatNumber,
  formatShortDateTime,
} from "../../lib/format";
import { sessionCost } from "./session-cost";

export function SessionsTable({
  sessions,
  environment,
  caption,
}: {
  sessions: readonly Session[];
  environment: Environment;
  caption: string;
}) {
  return (
    <div className="table-scroll">
      <table className="table table--cards table--sessions">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Agent</th>
            <th scope="col">User</th>
            <th scope="col">Status</th>
            <th scope="col">Failure reason</th>
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
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.id}>
              <th scope="row" data-label="Name" className="cell--name">
                <Link
                  to={withEnvironment(`/sessions/${encodeURIComponent(session.id)}`, environment)}
                  className="clamp"
                  title={session.name}
                >
                  {session.name}
                </Link>
              </th>
              <td data-label="Agent" className="cell--clip cell--agent">
                <span className="clamp" title={session.agentName}>
                  {session.agentName}
                </span>
              </td>
              <td data-label="User" className="cell--clip">
                <span className="clamp" title={session.userId}>
                  {session.userId}
                </span>
              </td>
              <td data-label="Status" className="cell--nowrap">
                <StatusBadge status={session.status} />
                {session.stale ? <StatusBadge status="stale" label="stale" /> : null}
              </td>
              <td data-label="Failure reason" className="cell--reason">
                {session.failureReason === null ? null : (
                  <span className="clamp clamp--3" title={session.failureReason}>
                    {session.failureReason}
                  </span>
                )}
              </td>
              <td data-label="Cost" className="num">
                {formatCost(sessionCost(session).amount)}
              </td>
              <td data-label="Tokens" className="num" title={formatNumber(session.totalTokens)}>
                {formatCompact(session.totalTokens)}
              </td>
              <td data-label="Duration" className="num">
                {formatDuration(session.durationMs)}
              </td>
              <td data-label="Events" className="num">
                {formatNumber(session.eventCount)}
              </td>
              <td data-label="Started" className="cell--nowrap">
                <time dateTime={session.createdAt} title={formatDateTime(session.createdAt)}>
                  {formatShortDateTime(session.createdAt)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
