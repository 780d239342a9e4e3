/** Rotate a key: choose how long the old one keeps working; then the new key once and the old key's expiry. */
import { type FormEvent, useState } from "react";
import { useRotateKey } from "../../api/keys";
import type { ApiKey } from "../../api/types";
import { CopyButton } from "../../components/CopyButton";
import { Dialog } from "../../components/Dialog";
import { DialogActions } from "../../components/DialogActions";
import { InlineError } from "../../components/ErrorState";
import { NewKeySecret } from "../../components/NewKeySecret";
import { formatDateTime } from "../../lib/format";
import { KeyUsage } from "./KeyUsage";

const OVERLAPS = [
  { seconds: 0, label: "No overlap: the old key stops working now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours (default)" },
  { seconds: 259_200, label: "3 days" },
  { seconds: 604_800, label: "7 days (the most allowed)" },
];

/** `onClose` is told whether the key was rotated. */
export function RotateKeyDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: (rotated?: boolean) => void }) {
  const rotate = useRotateKey();
  const [overlapSeconds, setOverlapSeconds] = useState(86_400);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    rotate.mutate({ id: apiKey.id, overlapSeconds });
  }

  if (rotate.data !== undefined) {
    const rotated = rotate.data;
    return (
      <Dialog title={`Key "${apiKey.name}" rotated`} onClose={() => onClose(true)} wide>
        <NewKeySecret plaintext={rotated.key} />
        <p>
          This key (…{rotated.hint}) replaces …{rotated.rotatedFrom.hint}, which{" "}
          {rotated.rotatedFrom.expiresAt === null
            ? "has stopped working."
            : `works until ${formatDateTime(rotated.rotatedFrom.expiresAt)}: deploy the new key before then.`}
        </p>
        <KeyUsage apiKey={rotated.key} scopes={rotated.scopes} />
        <div className="dialog__actions">
          <CopyButton text={rotated.key} label="Copy key" />
          <button type="button" className="button button--primary" onClick={() => onClose(true)}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title={`Rotate "${apiKey.name}"`} onClose={() => onClose()}>
      <form onSubmit={submit}>
        <p>
          A new key replaces …{apiKey.hint}. The old key can keep working for a while, so you can deploy the new one.
        </p>
        <label className="field">
          <span>Old key keeps working for</span>
          <select
            value={overlapSeconds}
            onChange={(event) => setOverlapSeconds(Number(event.target.value))}
            data-autofocus
          >
            {OVERLAPS.map((option) => (
              <option key={option.seconds} value={option.seconds}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <InlineError error={rotate.error} />
        <DialogActions
          onCancel={() => onClose()}
          pending={rotate.isPending}
          label="Rotate key"
          pendingLabel="Rotating…"
        />
      </form>
    </Dialog>
  );
}
