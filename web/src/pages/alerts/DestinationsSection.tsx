/**
 * The organisation's destinations (both environments' monitors use them): kind, URL, whether enabled (and why not),
 * last delivery and error. Owners and admins add, test, rotate a webhook's secret, re-enable and delete.
 */
import { useState } from "react";
import type { Destination } from "../../api/alert-types";
import {
  useDeleteDestination,
  useDestinations,
  useRotateDestinationSecret,
  useTestDestination,
  useUpdateDestination,
} from "../../api/alerts";
import { useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime, formatShortDateTime } from "../../lib/format";
import { useTransient } from "../../lib/use-transient";
import { CreateDestinationDialog } from "./CreateDestinationDialog";
import { SigningSecretDialog } from "./SigningSecret";

type Open =
  | { kind: "create" }
  | { kind: "rotate" | "delete"; destination: Destination }
  | { kind: "secret"; destination: Destination; secret: string }
  | null;

const KIND_LABELS: Record<Destination["kind"], string> = {
  webhook: "Webhook",
  slack: "Slack",
  eventbridge: "EventBridge",
};

function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {formatShortDateTime(at)}
    </time>
  );
}

function DestinationRow({
  destination,
  canManage,
  onOpen,
  onMessage,
}: {
  destination: Destination;
  canManage: boolean;
  onOpen: (open: Open) => void;
  onMessage: (message: string) => void;
}) {
  const test = useTestDestination();
  const update = useUpdateDestination();
  const sendTest = () =>
    test.mutate(destination.id, {
      onSuccess: (result) =>
        onMessage(
          result.delivered
            ? `Test delivered to ${destination.name}${result.status === undefined ? "" : ` (HTTP ${result.status})`}.`
            : `Test to ${destination.name} failed: ${result.error ?? `HTTP ${result.status ?? "?"}`}.`,
        ),
    });
  const reEnable = () =>
    update.mutate({ ...destination, enabled: true }, { onSuccess: () => onMessage(`${destination.name} re-enabled.`) });
  return (
    <tr>
      <th scope="row" data-label="Name">
        {destination.name}
      </th>
      <td data-label="Kind">{KIND_LABELS[destination.kind]}</td>
      <td data-label="URL" className="cell--break">
        {destination.url === null ? (
          <span className="muted">The service's event bus</span>
        ) : (
          <code>{destination.url}</code>
        )}
      </td>
      <td data-label="Status">
        {destination.enabled ? (
          <StatusBadge status="active" label="Enabled" />
        ) : (
          <>
            <StatusBadge status="disabled" label="Disabled" />
            {destination.disabledReason === null ? null : <span className="muted"> {destination.disabledReason}</span>}
          </>
        )}
      </td>
      <td data-label="Last delivery">
        {destination.lastDeliveryAt === null ? "Never" : <When at={destination.lastDeliveryAt} />}
        {destination.lastError === null ? null : (
          <>
            <br />
            <span className="inline-error-text">Last error: {destination.lastError}</span>
          </>
        )}
        {destination.consecutiveFailures > 0 ? (
          <>
            <br />
            <span className="muted">{destination.consecutiveFailures} failed in a row</span>
          </>
        ) : null}
      </td>
      {canManage ? (
        <td data-label="Actions">
          <div className="actions">
            <button
              type="button"
              className="button button--small"
              onClick={sendTest}
              disabled={test.isPending}
              aria-label={`Send a test to ${destination.name}`}
            >
              {test.isPending ? "Sending…" : "Send a test"}
            </button>
            {destination.kind === "webhook" ? (
              <button
                type="button"
                className="button button--small"
                onClick={() => onOpen({ kind: "rotate", destination })}
                aria-label={`Rotate secret of ${destination.name}`}
              >
                Rotate secret
              </button>
            ) : null}
            {destination.enabled ? null : (
              <button
                type="button"
                className="button button--small"
                onClick={reEnable}
                disabled={update.isPending}
                aria-label={`Re-enable ${destination.name}`}
              >
                Re-enable
              </button>
            )}
            <button
              type="button"
              className="button button--small button--danger"
              onClick={() => onOpen({ kind: "delete", destination })}
              aria-label={`Delete ${destination.name}`}
            >
              Delete
            </button>
          </div>
          <InlineError error={test.error ?? update.error} />
        </td>
      ) : null}
    </tr>
  );
}

export function DestinationsSection({ canManage }: { canManage: boolean }) {
  const { orgId } = useOrganisation();
  const destinations = useDestinations();
  const rotate = useRotateDestinationSecret();
  const remove = useDeleteDestination();
  const [open, setOpen] = useState<Open>(null);
  const [message, showMessage] = useTransient<string>();
  const close = () => {
    rotate.reset();
    remove.reset();
    setOpen(null);
  };
  return (
    <section className="section" aria-labelledby="destinations-heading">
      <div className="section__header">
        <h2 id="destinations-heading">Destinations</h2>
        {canManage ? (
          <button type="button" className="button" onClick={() => setOpen({ kind: "create" })}>
            Add a destination
          </button>
        ) : null}
      </div>
      <p className="muted">
        Where notifications go, for the monitors of both environments: a signed webhook, a Slack channel, or
        EventBridge. A destination that fails 10 deliveries in a row is disabled, with the reason shown here.
      </p>
      <p className="muted status-line" role="status">
        {message ?? ""}
      </p>
      {destinations.isPending ? <Loading label="Loading destinations…" /> : null}
      {destinations.isError ? <ErrorState error={destinations.error} onRetry={() => destinations.refetch()} /> : null}
      {destinations.data?.length === 0 ? (
        <EmptyState title="No destinations yet.">
          {canManage ? "Add one for monitors to notify." : "Owners and admins add them."}
        </EmptyState>
      ) : null}
      {destinations.data !== undefined && destinations.data.length > 0 ? (
        <div className="table-scroll">
          <table className="table table--cards table--destinations">
            <caption>Destinations of {orgId}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">URL</th>
                <th scope="col">Status</th>
                <th scope="col">Last delivery</th>
                {canManage ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {destinations.data.map((destination) => (
                <DestinationRow
                  key={destination.id}
                  destination={destination}
                  canManage={canManage}
                  onOpen={setOpen}
                  onMessage={showMessage}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {open?.kind === "create" ? (
        <CreateDestinationDialog
          onClose={(created) => {
            close();
            if (created !== undefined) showMessage(`Destination “${created}” added.`);
          }}
        />
      ) : null}
      {open?.kind === "rotate" ? (
        <ConfirmDialog
          title={`Rotate the secret of ${open.destination.name}?`}
          confirmLabel="Rotate secret"
          onCancel={close}
          onConfirm={() =>
            rotate.mutate(open.destination.id, {
              onSuccess: ({ secret }) => setOpen({ kind: "secret", destination: open.destination, secret }),
            })
          }
          pending={rotate.isPending}
          error={rotate.error}
        >
          <p>The old secret stops signing at once: give the new one to the receiver before the next notification.</p>
        </ConfirmDialog>
      ) : null}
      {open?.kind === "secret" ? (
        <SigningSecretDialog
          title={`New secret of ${open.destination.name}`}
          secret={open.secret}
          onClose={() => {
            close();
            showMessage(`Secret of ${open.destination.name} rotated.`);
          }}
        />
      ) : null}
      {open?.kind === "delete" ? (
        <ConfirmDialog
          title={`Delete ${open.destination.name}?`}
          confirmLabel="Delete destination"
          onCancel={close}
          onConfirm={() =>
            remove.mutate(open.destination.id, {
              onSuccess: () => {
                close();
                showMessage(`Destination ${open.destination.name} deleted.`);
              },
            })
          }
          pending={remove.isPending}
          error={remove.error}
        >
          <p>Monitors naming it keep running; they no longer notify it.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
