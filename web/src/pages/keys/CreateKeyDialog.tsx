/** Create a key: name, environment and scopes; then its plaintext once. */
import { type FormEvent, useState } from "react";
import { useCreateKey } from "../../api/keys";
import { DEFAULT_SCOPES, type Environment, SCOPES, type Scope } from "../../api/types";
import { CopyButton } from "../../components/CopyButton";
import { Dialog } from "../../components/Dialog";
import { DialogActions } from "../../components/DialogActions";
import { InlineError } from "../../components/ErrorState";
import { NewKeySecret } from "../../components/NewKeySecret";
import { KeyUsage } from "./KeyUsage";

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "sessions:write": "create and update sessions",
  "events:write": "record events",
  "scores:write": "record, replace and delete scores",
  read: "read sessions, events and stats",
  delete: "delete sessions and users' data",
};

/** `onClose` gets the new key's name once it was created. */
export function CreateKeyDialog({ onClose }: { onClose: (created?: string) => void }) {
  const create = useCreateKey();
  const [name, setName] = useState("");
  const [environment, setEnvironment] = useState<Environment>("live");
  const [scopes, setScopes] = useState<Scope[]>([...DEFAULT_SCOPES]);
  const [formError, setFormError] = useState<string | null>(null);

  function toggle(scope: Scope, on: boolean) {
    setScopes((current) =>
      on ? SCOPES.filter((s) => s === scope || current.includes(s)) : current.filter((s) => s !== scope),
    );
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (name.trim() === "") return setFormError("Give the key a name.");
    if (scopes.length === 0) return setFormError("Choose at least one scope.");
    setFormError(null);
    create.mutate({ name: name.trim(), environment, scopes });
  }

  if (create.data !== undefined) {
    const key = create.data;
    return (
      <Dialog title={`Key "${key.name}" created`} onClose={() => onClose(key.name)} wide>
        <NewKeySecret plaintext={key.key} />
        <KeyUsage apiKey={key.key} scopes={key.scopes} />
        <div className="dialog__actions">
          <CopyButton text={key.key} label="Copy key" />
          <button type="button" className="button button--primary" onClick={() => onClose(key.name)}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="Create an API key" onClose={() => onClose()}>
      <form onSubmit={submit} noValidate>
        <label className="field">
          <span>Name</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={256}
            required
            data-autofocus
          />
        </label>
        <fieldset className="field">
          <legend>Environment</legend>
          {(["live", "test"] as const).map((value) => (
            <label key={value} className="choice">
              <input
                type="radio"
                name="environment"
                value={value}
                checked={environment === value}
                onChange={() => setEnvironment(value)}
              />
              {value === "live" ? "Live" : "Test"}
            </label>
          ))}
        </fieldset>
        <fieldset className="field">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="choice">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) => toggle(scope, event.target.checked)}
              />
              <code>{scope}</code> <span className="muted">{SCOPE_DESCRIPTIONS[scope]}</span>
            </label>
          ))}
        </fieldset>
        {formError === null ? null : (
          <p className="inline-error" role="alert">
            {formError}
          </p>
        )}
        <InlineError error={create.error} />
        <DialogActions
          onCancel={() => onClose()}
          pending={create.isPending}
          label="Create key"
          pendingLabel="Creating…"
        />
      </form>
    </Dialog>
  );
}
