/** The environment's monitors: what each measures, its window, its state and last figure, the last 72 hours. */
import { Link } from "react-router";
import { useMonitors } from "../../api/alerts";
import { useOrganisation } from "../../auth/organisation-context";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { describeMetric, describeThresholds, formatWindow, stateSummary } from "../../lib/monitor-text";
import { MonitorStateBadge } from "./MonitorStateBadge";
import { MonitorSparkline } from "./Sparkline";

export function MonitorsTable({ canManage }: { canManage: boolean }) {
  const { orgId } = useOrganisation();
  const [environment] = useEnvironment();
  const monitors = useMonitors(environment);
  if (monitors.isPending) return <Loading label="Loading monitors…" />;
  if (monitors.isError) return <ErrorState error={monitors.error} onRetry={() => monitors.refetch()} />;
  if (monitors.data.length === 0) {
    return (
      <EmptyState title={`No monitors in ${environment} yet.`}>
        {canManage
          ? "Create one to be told when an agent starts failing, costing or slowing down."
          : "Owners and admins create them."}
      </EmptyState>
    );
  }
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption>
          Monitors of {orgId} ({environment})
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Measures</th>
            <th scope="col">Window</th>
            <th scope="col">State</th>
            <th scope="col">Last figure</th>
            <th scope="col">Last 72 h</th>
          </tr>
        </thead>
        <tbody>
          {monitors.data.map((monitor) => (
            <tr key={monitor.id}>
              <th scope="row" data-label="Name">
                <Link to={withEnvironment(`/alerts/${encodeURIComponent(monitor.id)}`, environment)}>
                  {monitor.name}
                </Link>
              </th>
              <td data-label="Measures">
                {describeMetric(monitor)}
                <br />
                <span className="muted">Alert {describeThresholds(monitor)}</span>
              </td>
              <td data-label="Window" className="cell--nowrap">
                {formatWindow(monitor.windowMinutes)}
              </td>
              <td data-label="State">
                <MonitorStateBadge monitor={monitor} />
              </td>
              <td data-label="Last figure" className="cell--nowrap">
                {stateSummary(monitor)}
              </td>
              <td data-label="Last 72 h">
                <MonitorSparkline monitor={monitor} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
