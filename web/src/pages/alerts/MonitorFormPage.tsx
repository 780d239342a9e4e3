/** /alerts/new and /alerts/:id/edit: the monitor form on a page of its own (room for the preview chart). */
import { Link, useNavigate, useParams } from "react-router";
import { useMonitor } from "../../api/alerts";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { MonitorForm } from "./MonitorForm";

function RefusedToMember() {
  const { orgId, role } = useOrganisation();
  const [environment] = useEnvironment();
  return (
    <p className="muted">
      You are a {role} of {orgId}: owners and admins create and change monitors.{" "}
      <Link to={withEnvironment("/alerts", environment)}>Back to alerts</Link>
    </p>
  );
}

export function NewMonitorPage() {
  const { role } = useOrganisation();
  const [environment] = useEnvironment();
  const navigate = useNavigate();
  return (
    <>
      <h1>New monitor</h1>
      {hasRole(role, "admin") ? (
        <MonitorForm
          onSaved={(monitor) => navigate(withEnvironment(`/alerts/${encodeURIComponent(monitor.id)}`, environment))}
          onCancel={() => navigate(withEnvironment("/alerts", environment))}
        />
      ) : (
        <RefusedToMember />
      )}
    </>
  );
}

export function EditMonitorPage() {
  const { id = "" } = useParams();
  const { role } = useOrganisation();
  const [environment] = useEnvironment();
  const navigate = useNavigate();
  const monitor = useMonitor(environment, id);
  const back = withEnvironment(`/alerts/${encodeURIComponent(id)}`, environment);
  if (monitor.isPending) return <Loading label="Loading the monitor…" />;
  if (monitor.isError) return <ErrorState error={monitor.error} onRetry={() => monitor.refetch()} />;
  return (
    <>
      <h1>Change {monitor.data.name}</h1>
      {hasRole(role, "admin") ? (
        <MonitorForm editing={monitor.data} onSaved={() => navigate(back)} onCancel={() => navigate(back)} />
      ) : (
        <RefusedToMember />
      )}
    </>
  );
}
