/** Add or change a score configuration: the name, its kind, and a range (numbers) or the labels allowed (labels). */
import { type FormEvent, useState } from "react";
import { useSetScoreConfig } from "../../api/scores";
import { SCORE_VALUE_KINDS, type ScoreConfig, type ScoreValueKind } from "../../api/types";
import { Dialog } from "../../components/Dialog";
import { DialogActions } from "../../components/DialogActions";
import { InlineError } from "../../components/ErrorState";
import { KIND_NAMES, SCORE_NAME_LENGTH } from "../../lib/score-values";
import { CONFIG_DESCRIPTION_LENGTH, configBody, fieldsOf, type ScoreConfigFields } from "./score-config-form";

export function ScoreConfigDialog({
  editing,
  onClose,
}: {
  editing?: ScoreConfig | undefined;
  /** `saved`: the name configured, once stored. */
  onClose: (saved?: string) => void;
}) {
  const save = useSetScoreConfig();
  const [fields, setFields] = useState<ScoreConfigFields>(() => fieldsOf(editing));
  const [formError, setFormError] = useState<string | null>(null);
  const set = (field: keyof ScoreConfigFields) => (event: { target: { value: string } }) =>
    setFields((current) => ({ ...current, [field]: event.target.value }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const result = configBody(fields);
    if ("error" in result) return setFormError(result.error);
    setFormError(null);
    save.mutate(result.body, { onSuccess: (config) => onClose(config.name) });
  }

  return (
    <Dialog
      title={editing === undefined ? "Add a score configuration" : `Change the configuration of ${editing.name}`}
      onClose={() => onClose()}
    >
      <form onSubmit={submit} noValidate>
        <label className="field">
          <span>Score name</span>
          <input
            value={fields.name}
            onChange={set("name")}
            maxLength={SCORE_NAME_LENGTH}
            readOnly={editing !== undefined}
            required
            spellCheck={false}
            autoComplete="off"
            data-autofocus={editing === undefined ? true : undefined}
          />
        </label>
        <label className="field">
          <span>Kind</span>
          <select
            value={fields.dataType}
            onChange={(event) =>
              setFields((current) => ({ ...current, dataType: event.target.value as ScoreValueKind }))
            }
            data-autofocus={editing === undefined ? undefined : true}
          >
            {SCORE_VALUE_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {KIND_NAMES[kind]}
              </option>
            ))}
          </select>
        </label>
        {fields.dataType === "numeric" ? (
          <fieldset className="field">
            <legend>Range (either may be left open)</legend>
            <div className="field-row">
              <label className="field">
                <span>Lowest</span>
                <input value={fields.min} onChange={set("min")} inputMode="decimal" autoComplete="off" />
              </label>
              <label className="field">
                <span>Highest</span>
                <input value={fields.max} onChange={set("max")} inputMode="decimal" autoComplete="off" />
              </label>
            </div>
          </fieldset>
        ) : null}
        {fields.dataType === "categorical" ? (
          <label className="field">
            <span>Labels, one a line (empty: any label)</span>
            <textarea value={fields.labels} onChange={set("labels")} rows={5} spellCheck={false} />
          </label>
        ) : null}
        <label className="field">
          <span>Description (optional)</span>
          <textarea
            value={fields.description}
            onChange={set("description")}
            maxLength={CONFIG_DESCRIPTION_LENGTH}
            rows={2}
          />
        </label>
        {formError === null ? null : (
          <p className="inline-error" role="alert">
            {formError}
          </p>
        )}
        <InlineError error={save.error} />
        <DialogActions
          onCancel={() => onClose()}
          pending={save.isPending}
          label="Save configuration"
          pendingLabel="Saving…"
        />
      </form>
    </Dialog>
  );
}
