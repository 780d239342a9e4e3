/**
 * Alerts: the environment's monitors (state, last figure, the last 72 hours) and the organisation's destinations.
 * Everyone reads them; owners and admins create, change and delete them.
 */
import { Link } from "react-router";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { DestinationsSection } from "./DestinationsSection";
import { MonitorsTable } from "./MonitorsTable";

export function AlertsPage() {
  const { orgId, role } = useOrganisation();
  const [environment] = useEnvironment();
  const canManage = hasRole(role, "admin");
  return (
    <>
      <div className="page__header">
        <h1>Alerts</h1>
        {canManage ? (
          <Link className="button button--primary" to={withEnvironment("/alerts/new", environment)}>
            New monitor
          </Link>
        ) : null}
      </div>
      <p className="muted">
        A monitor measures one figure of {environment} over a sliding window every minute and notifies its destinations
        when it crosses a threshold, and when it recovers.
        {canManage ? null : ` You are a ${role} of ${orgId}: owners and admins create and change monitors.`}
      </p>
      <section className="section" aria-labelledby="monitors-heading">
        <h2 id="monitors-heading">Monitors</h2>
        <MonitorsTable canManage={canManage} />
      </section>
      <DestinationsSection canManage={canManage} />
    </>
  );
}
