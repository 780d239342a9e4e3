/**
 * Organisation settings → API keys: list, create, rotate, revoke, audit (buttons only for the roles allowed; a
 * button whose action would be refused is disabled and says why). A rotation's two keys name each other.
 */
import { useState } from "react";
import { useKeys, useRevokeKey } from "../../api/keys";
import type { ApiKey } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime, formatShortDateTime } from "../../lib/format";
import { useTransient } from "../../lib/use-transient";
import { CreateKeyDialog } from "./CreateKeyDialog";
import { KeyAuditDialog } from "./KeyAuditDialog";
import { RotateKeyDialog } from "./RotateKeyDialog";

type Open = { kind: "create" } | { kind: "rotate" | "revoke" | "audit"; key: ApiKey } | null;

/** Why a key cannot be rotated now, or null when it can. */
function rotationRefusal(key: ApiKey): string | null {
  if (key.rotatedTo !== null) return "Already rotated: rotate its replacement.";
  if (key.status !== "active") return `A ${key.status} key cannot be rotated.`;
  return null;
}

function Lineage({ apiKey, keys }: { apiKey: ApiKey; keys: readonly ApiKey[] }) {
  const hint = (id: string | null) => {
    const other = keys.find((candidate) => candidate.id === id);
    return other === undefined ? "an older key" : `…${other.hint}`;
  };
  if (apiKey.rotatedFrom !== null)
    return <span className="key-lineage">Replacement of {hint(apiKey.rotatedFrom)}</span>;
  if (apiKey.rotatedTo !== null) return <span className="key-lineage">Replaced by {hint(apiKey.rotatedTo)}</span>;
  return null;
}

export function KeysPage() {
  const { orgId, role } = useOrganisation();
  const keys = useKeys();
  const revoke = useRevokeKey();
  const [open, setOpen] = useState<Open>(null);
  const [message, showMessage] = useTransient<string>();
  const canManage = hasRole(role, "admin");
  const close = () => {
    revoke.reset();
    setOpen(null);
  };

  return (
    <>
      <div className="page__header">
        <h1>API keys</h1>
        {canManage ? (
          <button type="button" className="button button--primary" onClick={() => setOpen({ kind: "create" })}>
            Create key
          </button>
        ) : null}
      </div>
      {canManage ? null : (
        <p className="muted">
          You are a {role} of {orgId}: you can see keys and their audit trails; owners and admins create, rotate and
          revoke them.
        </p>
      )}
      <p className="muted status-line" role="status">
        {message ?? ""}
      </p>
      {keys.isPending ? <Loading label="Loading keys…" /> : null}
      {keys.isError ? <ErrorState error={keys.error} onRetry={() => keys.refetch()} /> : null}
      {keys.data?.length === 0 ? (
        <EmptyState title="No API keys yet.">{canManage ? "Create one to start recording sessions." : null}</EmptyState>
      ) : null}
      {keys.data !== undefined && keys.data.length > 0 ? (
        <div className="table-scroll">
          <table className="table table--cards table--keys">
            <caption>API keys of {orgId}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => {
                const refusal = rotationRefusal(key);
                return (
                  <tr key={key.id}>
                    <th scope="row" data-label="Name">
                      {key.name}
                      <Lineage apiKey={key} keys={keys.data} />
                    </th>
                    <td data-label="Key" className="cell--nowrap">
                      <code>…{key.hint}</code>
                    </td>
                    <td data-label="Environment">
                      <StatusBadge status={key.environment} />
                    </td>
                    <td data-label="Scopes">
                      <ul className="scopes">
                        {key.scopes.map((scope) => (
                          <li key={scope}>
                            <code>{scope}</code>
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td data-label="Created" className="cell--nowrap">
                      <time dateTime={key.createdAt} title={formatDateTime(key.createdAt)}>
                        {formatShortDateTime(key.createdAt)}
                      </time>
                      <br />
                      <span className="muted">by {key.createdBy}</span>
                    </td>
                    <td data-label="Last used" className="cell--nowrap">
                      {key.lastUsedAt === null ? (
                        "Never"
                      ) : (
                        <time dateTime={key.lastUsedAt} title={formatDateTime(key.lastUsedAt)}>
                          {formatShortDateTime(key.lastUsedAt)}
                        </time>
                      )}
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={key.status} />
                      {key.status === "expiring" && key.expiresAt !== null ? (
                        <span className="muted key-until"> until {formatShortDateTime(key.expiresAt)}</span>
                      ) : null}
                    </td>
                    <td data-label="Actions">
                      <div className="actions">
                        <button
                          type="button"
                          className="button button--small"
                          onClick={() => setOpen({ kind: "audit", key })}
                          aria-label={`Audit trail of ${key.name} (…${key.hint})`}
                        >
                          Audit
                        </button>
                        {canManage && key.status !== "revoked" && key.status !== "expired" ? (
                          <>
                            <button
                              type="button"
                              className="button button--small"
                              onClick={() => setOpen({ kind: "rotate", key })}
                              aria-label={`Rotate ${key.name} (…${key.hint})`}
                              disabled={refusal !== null}
                              title={refusal ?? undefined}
                            >
                              Rotate
                            </button>
                            <button
                              type="button"
                              className="button button--small button--danger"
                              onClick={() => setOpen({ kind: "revoke", key })}
                              aria-label={`Revoke ${key.name} (…${key.hint})`}
                            >
                              Revoke
                            </button>
                          </>
                        ) : null}
                      </div>
                      {canManage && refusal !== null && key.rotatedTo !== null && key.status === "expiring" ? (
                        <p className="muted action-note">{refusal}</p>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {open?.kind === "create" ? (
        <CreateKeyDialog
          onClose={(created) => {
            close();
            if (created !== undefined) showMessage(`Key “${created}” created.`);
          }}
        />
      ) : null}
      {open?.kind === "rotate" ? (
        <RotateKeyDialog
          apiKey={open.key}
          onClose={(rotated) => {
            close();
            if (rotated) showMessage(`Key “${open.key.name}” rotated.`);
          }}
        />
      ) : null}
      {open?.kind === "audit" ? <KeyAuditDialog apiKey={open.key} onClose={close} /> : null}
      {open?.kind === "revoke" ? (
        <ConfirmDialog
          title={`Revoke "${open.key.name}"?`}
          confirmLabel="Revoke key"
          onCancel={close}
          onConfirm={() =>
            revoke.mutate(open.key.id, {
              onSuccess: () => {
                close();
                showMessage(`Key “${open.key.name}” (…${open.key.hint}) revoked.`);
              },
            })
          }
          pending={revoke.isPending}
          error={revoke.error}
        >
          <p>
            Anything using the key …{open.key.hint} ({open.key.environment}) stops working within about 10 seconds. This
            cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
