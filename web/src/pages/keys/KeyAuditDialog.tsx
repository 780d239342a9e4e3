/** Who created, rotated and revoked a key, and when: in words, naming the keys a rotation links. */
import { useKeyAudit, useKeys } from "../../api/keys";
import type { ApiKey, ApiKeyAuditRecord } from "../../api/types";
import { Dialog } from "../../components/Dialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { formatDateTime, formatDuration, plural } from "../../lib/format";

const ACTIONS = { "key.created": "Created", "key.rotated": "Rotated", "key.revoked": "Revoked" } as const;

/** A rotation's overlap in words: "24 hours", "3 days", "90 s". */
function overlapText(seconds: number): string {
  if (seconds >= 2 * 86_400 && seconds % 86_400 === 0) return plural(seconds / 86_400, "day");
  if (seconds >= 3600 && seconds % 3600 === 0) return plural(seconds / 3600, "hour");
  return formatDuration(seconds * 1000);
}

/** A key by id, as "…Wq3z" (its hint) when the list has it. */
function keyName(keys: readonly ApiKey[] | undefined, id: unknown): string {
  if (typeof id !== "string") return "another key";
  const key = keys?.find((candidate) => candidate.id === id);
  return key === undefined ? id : `“${key.name}” (…${key.hint})`;
}

/** What the record's details say, as a sentence (the fields each action records: functions/store/keys/api-key-store.ts). */
function detailsSentence(record: ApiKeyAuditRecord, keys: readonly ApiKey[] | undefined): string | null {
  const { details } = record;
  if (record.action === "key.created") {
    if (details.rotatedFrom !== undefined) return `As the replacement of ${keyName(keys, details.rotatedFrom)}.`;
    const scopes = typeof details.scopes === "string" ? `with the scopes ${details.scopes.split(" ").join(", ")}` : "";
    if (typeof details.environment === "string") return `For ${details.environment}${scopes && `, ${scopes}`}.`;
    return scopes === "" ? null : `W${scopes.slice(1)}.`;
  }
  if (record.action === "key.rotated") {
    const replacement = `Replaced by ${keyName(keys, details.replacedBy)}`;
    if (details.overlapSeconds === 0) return `${replacement}; it stopped working at once.`;
    const overlap = typeof details.overlapSeconds === "number" ? ` for ${overlapText(details.overlapSeconds)}` : "";
    const until = typeof details.expiresAt === "string" ? `, until ${formatDateTime(details.expiresAt)}` : "";
    return `${replacement}; it kept working${overlap}${until}.`;
  }
  return null;
}

function AuditList({ keyId }: { keyId: string }) {
  const audit = useKeyAudit(keyId);
  const keys = useKeys();
  if (audit.isPending) return <Loading label="Loading the audit trail…" />;
  if (audit.isError) return <ErrorState error={audit.error} onRetry={() => audit.refetch()} />;
  if (audit.data.length === 0) return <EmptyState title="No audit records for this key." />;
  return (
    <ol className="audit">
      {audit.data.map((record) => {
        const sentence = detailsSentence(record, keys.data);
        return (
          <li key={record.id} className="audit__item">
            <p className="audit__line">
              <strong>{ACTIONS[record.action]}</strong> by <span className="audit__actor">{record.actor}</span>
            </p>
            <p className="audit__when">
              <time dateTime={record.at}>{formatDateTime(record.at)}</time>
            </p>
            {sentence === null ? null : <p className="audit__details">{sentence}</p>}
          </li>
        );
      })}
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
