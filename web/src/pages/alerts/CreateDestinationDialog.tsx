/** Add a destination: a name, a kind, and the URL a webhook or Slack posts to; then a webhook's secret, once. */
import { type FormEvent, useState } from "react";
import { DESTINATION_KINDS, type DestinationKind } from "../../api/alert-types";
import { useCreateDestination } from "../../api/alerts";
import { Dialog } from "../../components/Dialog";
import { DialogActions } from "../../components/DialogActions";
import { InlineError } from "../../components/ErrorState";
import { SigningSecretDialog } from "./SigningSecret";

export const KIND_NAMES: Record<DestinationKind, string> = {
  webhook: "Webhook (signed JSON)",
  slack: "Slack incoming webhook",
  eventbridge: "EventBridge (ats.monitor events on the service's bus)",
};

/** `onClose` gets the new destination's name once it was created. */
export function CreateDestinationDialog({ onClose }: { onClose: (created?: string) => void }) {
  const create = useCreateDestination();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<DestinationKind>("webhook");
  const [url, setUrl] = useState("");
  const [formError, setFormError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (name.trim() === "") return setFormError("Give the destination a name.");
    if (kind !== "eventbridge" && url.trim() === "") return setFormError("Give the URL to post to.");
    setFormError(null);
    const input = kind === "eventbridge" ? { name: name.trim(), kind } : { name: name.trim(), kind, url: url.trim() };
    // Without a secret to show (Slack, EventBridge) there is nothing more to say here.
    create.mutate(input, {
      onSuccess: (created) => (created.secret === undefined ? onClose(created.name) : undefined),
    });
  }

  const created = create.data;
  if (created?.secret !== undefined) {
    return (
      <SigningSecretDialog
        title={`Destination "${created.name}" created`}
        secret={created.secret}
        onClose={() => onClose(created.name)}
      />
    );
  }

  return (
    <Dialog title="Add a destination" onClose={() => onClose()}>
      <form onSubmit={submit} noValidate className="alerts-dialog">
        <label className="field">
          <span>Name</span>
          <input value={name} onChange={(event) => setName(event.target.value)} maxLength={100} data-autofocus />
        </label>
        <fieldset className="field">
          <legend>Kind</legend>
          {DESTINATION_KINDS.map((value) => (
            <label key={value} className="choice">
              <input
                type="radio"
                name="destination-kind"
                value={value}
                checked={kind === value}
                onChange={() => setKind(value)}
              />
              {KIND_NAMES[value]}
            </label>
          ))}
        </fieldset>
        {kind === "eventbridge" ? null : (
          <label className="field">
            <span>URL</span>
            <input
              type="url"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              placeholder={kind === "slack" ? "https://hooks.slack.com/services/…" : "https://"}
              spellCheck={false}
              autoComplete="off"
            />
          </label>
        )}
        {formError === null ? null : (
          <p className="inline-error" role="alert">
            {formError}
          </p>
        )}
        <InlineError error={create.error} />
        <DialogActions
          onCancel={() => onClose()}
          pending={create.isPending}
          label="Add destination"
          pendingLabel="Adding…"
        />
      </form>
    </Dialog>
  );
}
