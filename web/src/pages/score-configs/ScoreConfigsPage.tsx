/**
 * Score configurations: what the organisation says the values of a score name must be (a kind, and a range or the
 * labels allowed). Everyone reads them (the console's score form offers them); owners and admins add, change and
 * delete them.
 */
import { useState } from "react";
import { useDeleteScoreConfig, useScoreConfigs } from "../../api/scores";
import type { ScoreConfig } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { formatDateTime, formatShortDateTime } from "../../lib/format";
import { configRuleText, KIND_NAMES } from "../../lib/score-values";
import { useTransient } from "../../lib/use-transient";
import { ScoreConfigDialog } from "./ScoreConfigDialog";

type Open = { kind: "add" } | { kind: "edit"; config: ScoreConfig } | { kind: "delete"; config: ScoreConfig } | null;

function ConfigTable({ canManage, onOpen }: { canManage: boolean; onOpen: (open: Open) => void }) {
  const { orgId } = useOrganisation();
  const configs = useScoreConfigs();
  if (configs.isPending) return <Loading label="Loading score configurations…" />;
  if (configs.isError) return <ErrorState error={configs.error} onRetry={() => configs.refetch()} />;
  if (configs.data.length === 0) {
    return (
      <EmptyState title="No score configurations yet.">
        Scores of any name take any value. Configure a name to hold its scores to a kind, a range or a set of labels.
      </EmptyState>
    );
  }
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption>Score configurations of {orgId}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Allowed values</th>
            <th scope="col">Description</th>
            <th scope="col">Changed</th>
            {canManage ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {configs.data.map((config) => (
            <tr key={config.name}>
              <th scope="row" data-label="Name">
                <code>{config.name}</code>
              </th>
              <td data-label="Kind">{KIND_NAMES[config.dataType]}</td>
              <td data-label="Allowed values">{configRuleText(config)}</td>
              <td data-label="Description">{config.description ?? <span className="muted">—</span>}</td>
              <td data-label="Changed" className="cell--nowrap">
                <time dateTime={config.updatedAt} title={formatDateTime(config.updatedAt)}>
                  {formatShortDateTime(config.updatedAt)}
                </time>
                <br />
                <span className="muted">by {config.updatedBy}</span>
              </td>
              {canManage ? (
                <td data-label="Actions">
                  <div className="actions">
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => onOpen({ kind: "edit", config })}
                      aria-label={`Change the configuration of ${config.name}`}
                    >
                      Change
                    </button>
                    <button
                      type="button"
                      className="button button--small button--danger"
                      onClick={() => onOpen({ kind: "delete", config })}
                      aria-label={`Delete the configuration of ${config.name}`}
                    >
                      Delete
                    </button>
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScoreConfigsPage() {
  const { orgId, role } = useOrganisation();
  const canManage = hasRole(role, "admin");
  const remove = useDeleteScoreConfig();
  const [open, setOpen] = useState<Open>(null);
  const [message, showMessage] = useTransient<string>();
  const close = () => {
    remove.reset();
    setOpen(null);
  };
  return (
    <>
      <div className="page__header">
        <h1>Score configurations</h1>
        {canManage ? (
          <button type="button" className="button button--primary" onClick={() => setOpen({ kind: "add" })}>
            Add a configuration
          </button>
        ) : null}
      </div>
      <p className="muted">
        A score whose name is configured must keep to it, whoever sends it (an evaluator, an end user, a reviewer here),
        or it is refused. A change holds in both environments of {orgId} within a minute, for scores given from then on;
        scores already stored are kept as they are.
        {canManage ? null : ` You are a ${role}: owners and admins change configurations.`}
      </p>
      <p className="muted status-line" role="status">
        {message ?? ""}
      </p>
      <ConfigTable canManage={canManage} onOpen={setOpen} />
      {open?.kind === "add" || open?.kind === "edit" ? (
        <ScoreConfigDialog
          editing={open.kind === "edit" ? open.config : undefined}
          onClose={(saved) => {
            close();
            if (saved !== undefined) showMessage(`Configuration of ${saved} saved.`);
          }}
        />
      ) : null}
      {open?.kind === "delete" ? (
        <ConfirmDialog
          title={`Delete the configuration of ${open.config.name}?`}
          confirmLabel="Delete configuration"
          onCancel={close}
          onConfirm={() =>
            remove.mutate(open.config.name, {
              onSuccess: () => {
                close();
                showMessage(`Configuration of ${open.config.name} deleted.`);
              },
            })
          }
          pending={remove.isPending}
          error={remove.error}
        >
          <p>
            Scores named {open.config.name} take any value from about a minute later on. Scores already stored are kept.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
