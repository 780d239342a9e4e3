/** Who created, rotated and revoked a key, and when. */
import { useKeyAudit } from "../../api/keys";
import type { ApiKey } from "../../api/types";
import { Dialog } from "../../components/Dialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { formatDateTime } from "../../lib/format";

const ACTIONS = { "key.created": "Created", "key.rotated": "Rotated", "key.revoked": "Revoked" } as const;

function AuditList({ keyId }: { keyId: string }) {
  const audit = useKeyAudit(keyId);
  if (audit.isPending) return <Loading label="Loading the audit trail…" />;
  if (audit.isError) return <ErrorState error={audit.error} onRetry={() => audit.refetch()} />;
  if (audit.data.length === 0) return <EmptyState title="No audit records for this key." />;
  return (
    <ol className="audit">
      {audit.data.map((record) => (
        <li key={record.id} className="audit__item">
          <strong>{ACTIONS[record.action]}</strong> by {record.actor}{" "}
          <time dateTime={record.at} className="muted">
            {formatDateTime(record.at)}
          </time>
          {Object.keys(record.details).length === 0 ? null : (
            <dl className="audit__details">
              {Object.entries(record.details).map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>{String(value)}</dd>
                </div>
              ))}
            </dl>
          )}
        </li>
      ))}
    </ol>
  );
}

export function KeyAuditDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  return (
    <Dialog title={`Audit trail of "${apiKey.name}"`} onClose={onClose}>
      <AuditList keyId={apiKey.id} />
      <div className="dialog__actions">
        <button type="button" className="button" onClick={onClose} data-autofocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}
