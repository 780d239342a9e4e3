/** A monitor's state changes and re-notifications, newest first: the figure, the window and the threshold of each. */

import type { Monitor } from "../../api/alert-types";
import { useMonitorHistory } from "../../api/alerts";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime, formatNumber, formatShortDateTime } from "../../lib/format";
import { formatFigure, STATUS_WORDS } from "../../lib/monitor-text";

function Time({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {formatShortDateTime(at)}
    </time>
  );
}

export function MonitorHistory({ monitor }: { monitor: Monitor }) {
  const history = useMonitorHistory(monitor.environment, monitor.id);
  if (history.isPending) return <Loading label="Loading the history…" />;
  if (history.isError) return <ErrorState error={history.error} onRetry={() => history.refetch()} />;
  const entries = history.data.pages.flatMap((page) => page.history);
  if (entries.length === 0) {
    return <EmptyState title="No state changes yet.">Each change of state is listed here with its figure.</EmptyState>;
  }
  return (
    <>
      <div className="table-scroll">
        <table className="table table--cards">
          <caption>State changes of {monitor.name}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Change</th>
              <th scope="col" className="num">
                Figure
              </th>
              <th scope="col" className="num">
                Samples
              </th>
              <th scope="col" className="num">
                Threshold
              </th>
              <th scope="col">Window</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <th scope="row" data-label="When" className="cell--nowrap">
                  <Time at={entry.at} />
                </th>
                <td data-label="Change">
                  {entry.kind === "renotify" ? (
                    <>
                      <StatusBadge status={`monitor-${entry.to}`} label={STATUS_WORDS[entry.to]} /> still (notified
                      again)
                    </>
                  ) : (
                    <>
                      <StatusBadge status={`monitor-${entry.from}`} label={STATUS_WORDS[entry.from]} /> →{" "}
                      <StatusBadge status={`monitor-${entry.to}`} label={STATUS_WORDS[entry.to]} />
                    </>
                  )}
                </td>
                <td data-label="Figure" className="num">
                  {entry.figure === null ? "No data" : formatFigure(monitor.metric, entry.figure)}
                </td>
                <td data-label="Samples" className="num">
                  {formatNumber(entry.samples)}
                </td>
                <td data-label="Threshold" className="num">
                  {formatFigure(monitor.metric, entry.threshold)}
                </td>
                <td data-label="Window" className="cell--nowrap">
                  <Time at={entry.windowStart} /> – <Time at={entry.windowEnd} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {history.hasNextPage ? (
        <button
          type="button"
          className="button"
          onClick={() => history.fetchNextPage()}
          disabled={history.isFetchingNextPage}
        >
          {history.isFetchingNextPage ? "Loading…" : "Show older changes"}
        </button>
      ) : null}
    </>
  );
}
