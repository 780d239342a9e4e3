/** Organisation settings → API keys: list, create, rotate, revoke, audit (buttons only for the roles allowed). */
import { useState } from "react";
import { useKeys, useRevokeKey } from "../../api/keys";
import type { ApiKey } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime } from "../../lib/format";
import { CreateKeyDialog } from "./CreateKeyDialog";
import { KeyAuditDialog } from "./KeyAuditDialog";
import { RotateKeyDialog } from "./RotateKeyDialog";

type Open = { kind: "create" } | { kind: "rotate" | "revoke" | "audit"; key: ApiKey } | null;

function isUsable(key: ApiKey): boolean {
  return key.status === "active";
}

export function KeysPage() {
  const { orgId, role } = useOrganisation();
  const keys = useKeys();
  const revoke = useRevokeKey();
  const [open, setOpen] = useState<Open>(null);
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
      {keys.isPending ? <Loading label="Loading keys…" /> : null}
      {keys.isError ? <ErrorState error={keys.error} onRetry={() => keys.refetch()} /> : null}
      {keys.data?.length === 0 ? (
        <EmptyState title="No API keys yet.">{canManage ? "Create one to start recording sessions." : null}</EmptyState>
      ) : null}
      {keys.data !== undefined && keys.data.length > 0 ? (
        <div className="table-scroll">
          <table className="table table--cards">
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
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <th scope="row" data-label="Name">
                    {key.name}
                  </th>
                  <td data-label="Key">
                    <code>…{key.hint}</code>
                  </td>
                  <td data-label="Environment">
                    <StatusBadge status={key.environment} />
                  </td>
                  <td data-label="Scopes">{key.scopes.join(", ")}</td>
                  <td data-label="Created">
                    {formatDateTime(key.createdAt)}
                    <br />
                    <span className="muted">by {key.createdBy}</span>
                  </td>
                  <td data-label="Last used">{key.lastUsedAt === null ? "Never" : formatDateTime(key.lastUsedAt)}</td>
                  <td data-label="Status">
                    <StatusBadge status={key.status} />
                    {key.status === "expiring" && key.expiresAt !== null ? (
                      <span className="muted"> until {formatDateTime(key.expiresAt)}</span>
                    ) : null}
                  </td>
                  <td data-label="Actions">
                    <div className="actions">
                      <button
                        type="button"
                        className="button button--small"
                        onClick={() => setOpen({ kind: "audit", key })}
                        aria-label={`Audit trail of ${key.name}`}
                      >
                        Audit
                      </button>
                      {canManage && isUsable(key) ? (
                        <button
                          type="button"
                          className="button button--small"
                          onClick={() => setOpen({ kind: "rotate", key })}
                          aria-label={`Rotate ${key.name}`}
                        >
                          Rotate
                        </button>
                      ) : null}
                      {canManage && key.status !== "revoked" && key.status !== "expired" ? (
                        <button
                          type="button"
                          className="button button--small button--danger"
                          onClick={() => setOpen({ kind: "revoke", key })}
                          aria-label={`Revoke ${key.name}`}
                        >
                          Revoke
                        </button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {open?.kind === "create" ? <CreateKeyDialog onClose={close} /> : null}
      {open?.kind === "rotate" ? <RotateKeyDialog apiKey={open.key} onClose={close} /> : null}
      {open?.kind === "audit" ? <KeyAuditDialog apiKey={open.key} onClose={close} /> : null}
      {open?.kind === "revoke" ? (
        <ConfirmDialog
          title={`Revoke "${open.key.name}"?`}
          confirmLabel="Revoke key"
          onCancel={close}
          onConfirm={() => revoke.mutate(open.key.id, { onSuccess: close })}
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
