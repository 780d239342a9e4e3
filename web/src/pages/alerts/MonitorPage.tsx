/**
 * /alerts/:id: a monitor's definition in words, its state, its figure over the last 72 hours and its history.
 * Owners and admins change it, send a test notification and delete it.
 */
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import type { Monitor } from "../../api/alert-types";
import { useDeleteMonitor, useDestinations, useMonitor, useMonitorPreview, useTestMonitor } from "../../api/alerts";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatDateTime, formatNumber, plural } from "../../lib/format";
import { describeMetric, describeThresholds, formatWindow, METRICS, stateSummary } from "../../lib/monitor-text";
import { useTransient } from "../../lib/use-transient";
import { MonitorHistory } from "./MonitorHistory";
import { MonitorStateBadge } from "./MonitorStateBadge";
import { definitionOf } from "./monitor-form";
import { PreviewChart } from "./PreviewChart";

const NO_DATA: Record<Monitor["noData"], string> = {
  keep: "keeps its state",
  ok: "counts as OK",
  alert: "counts as an alert",
};

function Definition({ monitor }: { monitor: Monitor }) {
  const destinations = useDestinations();
  const names = monitor.destinationIds.map(
    (id) => destinations.data?.find((destination) => destination.id === id)?.name ?? `${id} (deleted)`,
  );
  return (
    <dl className="facts">
      <dt>Measures</dt>
      <dd>{describeMetric(monitor)}</dd>
      <dt>Alert</dt>
      <dd>
        {describeThresholds(monitor)} over {formatWindow(monitor.windowMinutes)}
      </dd>
      <dt>No data</dt>
      <dd>
        Fewer than {plural(monitor.minSessions, METRICS[monitor.metric].samples.replace(/s$/, ""))} in the window; it{" "}
        {NO_DATA[monitor.noData]}
      </dd>
      <dt>Notifies</dt>
      <dd>
        {names.length === 0 ? "No destination" : names.join(", ")}
        {monitor.renotifyMinutes === 0 ? "" : `; again every ${formatWindow(monitor.renotifyMinutes)} in alert`}
        {monitor.notifyOnRecovery ? "; on recovery" : ""}
      </dd>
      <dt>Last evaluated</dt>
      <dd>
        {monitor.state.evaluatedAt === null ? "Never" : formatDateTime(monitor.state.evaluatedAt)}
        {monitor.state.evaluatedAt === null ? "" : ` (${formatNumber(monitor.state.samples)} samples)`}
      </dd>
    </dl>
  );
}

function LastHours({ monitor }: { monitor: Monitor }) {
  const definition = definitionOf(monitor);
  const preview = useMonitorPreview(monitor.environment, definition);
  if (preview.isPending) return <Loading label="Reading the last 72 hours…" />;
  if (preview.isError) return <InlineError error={preview.error} />;
  return <PreviewChart definition={definition} preview={preview.data} />;
}

function MonitorView({ monitor }: { monitor: Monitor }) {
  const { role } = useOrganisation();
  const [environment] = useEnvironment();
  const navigate = useNavigate();
  const canManage = hasRole(role, "admin");
  const test = useTestMonitor(environment);
  const remove = useDeleteMonitor(environment);
  const [confirming, setConfirming] = useState(false);
  const [message, showMessage] = useTransient<string>();
  const sendTest = () =>
    test.mutate(monitor.id, {
      onSuccess: (result) =>
        showMessage(
          result.deliveries.length === 0
            ? "Test notification recorded; the monitor has no destination."
            : `Test notification on its way to ${plural(result.deliveries.length, "destination")}.`,
        ),
    });
  return (
    <>
      <p>
        <Link to={withEnvironment("/alerts", environment)}>← Alerts</Link>
      </p>
      <div className="page__header">
        <h1>{monitor.name}</h1>
        {canManage ? (
          <div className="actions">
            <Link
              className="button"
              to={withEnvironment(`/alerts/${encodeURIComponent(monitor.id)}/edit`, environment)}
            >
              Change
            </Link>
            <button type="button" className="button" onClick={sendTest} disabled={test.isPending}>
              {test.isPending ? "Sending…" : "Send a test notification"}
            </button>
            <button type="button" className="button button--danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </div>
        ) : null}
      </div>
      {monitor.description === undefined ? null : <p>{monitor.description}</p>}
      <p>
        <MonitorStateBadge monitor={monitor} /> · Last figure {stateSummary(monitor)}
      </p>
      <p className="muted status-line" role="status">
        {message ?? ""}
      </p>
      <InlineError error={test.error} />
      <Definition monitor={monitor} />
      <section className="section" aria-labelledby="last-hours-heading">
        <h2 id="last-hours-heading">Last 72 hours</h2>
        <LastHours monitor={monitor} />
      </section>
      <section className="section" aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        <MonitorHistory monitor={monitor} />
      </section>
      {confirming ? (
        <ConfirmDialog
          title={`Delete ${monitor.name}?`}
          confirmLabel="Delete monitor"
          onCancel={() => {
            remove.reset();
            setConfirming(false);
          }}
          onConfirm={() =>
            remove.mutate(monitor.id, { onSuccess: () => navigate(withEnvironment("/alerts", environment)) })
          }
          pending={remove.isPending}
          error={remove.error}
        >
          <p>It stops being evaluated and notifies no one from then on. This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

export function MonitorPage() {
  const { id = "" } = useParams();
  const [environment] = useEnvironment();
  const monitor = useMonitor(environment, id);
  if (monitor.isPending) return <Loading label="Loading the monitor…" />;
  if (monitor.isError) return <ErrorState error={monitor.error} onRetry={() => monitor.refetch()} />;
  return <MonitorView monitor={monitor.data} />;
}
