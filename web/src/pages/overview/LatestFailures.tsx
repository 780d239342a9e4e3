/** The newest failed sessions: what went wrong last, one click from its timeline. */
import type { UseQueryResult } from "@tanstack/react-query";
import { Link } from "react-router";
import type { Environment, Session } from "../../api/types";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { withEnvironment } from "../../lib/environment";
import { formatDateTime, formatShortDateTime } from "../../lib/format";

export function LatestFailures({
  query,
  environment,
  allFailed,
}: {
  query: UseQueryResult<Session[]>;
  environment: Environment;
  allFailed: string;
}) {
  return (
    <section className="section" aria-labelledby="latest-failures">
      <div className="section__header">
        <h2 id="latest-failures">Latest failed sessions</h2>
        <Link to={allFailed}>All failed sessions</Link>
      </div>
      {query.isPending ? <Loading label="Loading failed sessions…" /> : null}
      {query.isError ? <ErrorState error={query.error} onRetry={() => query.refetch()} /> : null}
      {query.data?.length === 0 ? <EmptyState title="No failed sessions." /> : null}
      {query.data !== undefined && query.data.length > 0 ? (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption className="visually-hidden">Latest failed sessions</caption>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Agent</th>
                <th scope="col">Failure reason</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {query.data.map((session) => (
                <tr key={session.id}>
                  <th scope="row" data-label="Session" className="cell--name">
                    <Link
                      to={withEnvironment(`/sessions/${encodeURIComponent(session.id)}`, environment)}
                      className="clamp"
                      title={session.name}
                    >
                      {session.name}
                    </Link>
                  </th>
                  <td data-label="Agent">{session.agentName}</td>
                  <td data-label="Failure reason" className="cell--reason">
                    <span className="clamp clamp--3" title={session.failureReason ?? undefined}>
                      {session.failureReason ?? "—"}
                    </span>
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
      ) : null}
    </section>
  );
}
