/**
 * Give a score (a name, a value, a comment) to a session, one of its steps or a conversation, or change one's own (same id: the
 * API replaces it). A name with a configuration offers its labels or states its range, and the value is checked
 * before it is sent; the API's field-level refusal is shown as it comes.
 */
import { type FormEvent, useId, useState } from "react";
import { type ScoreInput, type ScoreTarget, useSaveScore } from "../../api/scores";
import type { Environment, Score, ScoreConfig, ScoreValueKind } from "../../api/types";
import { SCORE_VALUE_KINDS } from "../../api/types";
import {
  configRuleText,
  KIND_NAMES,
  kindFor,
  parseScoreValue,
  SCORE_COMMENT_LENGTH,
  SCORE_NAME_LENGTH,
  scoreValueInput,
} from "../../lib/score-values";
import { Dialog } from "../Dialog";
import { DialogActions } from "../DialogActions";
import { InlineError } from "../ErrorState";

export interface ScoreDialogProps {
  environment: Environment;
  /** What is scored: a session, one of its steps, or a conversation. */
  target: ScoreTarget;
  /** The target in words, for the title: "this session", "Tool call: lookup_order", "this conversation". */
  targetName: string;
  editing?: Score | undefined;
  configs: readonly ScoreConfig[];
  /** `saved`: the score's name, once stored. */
  onClose: (saved?: string) => void;
}

function kindOfValue(score: Score | undefined): ScoreValueKind {
  return score?.valueKind ?? "categorical";
}

export function ScoreDialog({ environment, target, targetName, editing, configs, onClose }: ScoreDialogProps) {
  const save = useSaveScore(environment, target);
  const ids = { names: useId(), rule: useId(), value: useId() };
  const [name, setName] = useState(editing?.name ?? "");
  const [chosenKind, setChosenKind] = useState<ScoreValueKind>(kindOfValue(editing));
  const [valueText, setValueText] = useState(editing === undefined ? "" : scoreValueInput(editing.value));
  const [comment, setComment] = useState(editing?.comment ?? "");
  const [formError, setFormError] = useState<string | null>(null);
  const config = configs.find((candidate) => candidate.name === name.trim());
  const kind = kindFor(config, chosenKind);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmedName = name.trim();
    if (trimmedName === "" || [...trimmedName].length > SCORE_NAME_LENGTH) {
      return setFormError(`Name the score (1 to ${SCORE_NAME_LENGTH} characters).`);
    }
    const parsed = parseScoreValue(kind, valueText, config);
    if ("error" in parsed) return setFormError(parsed.error);
    setFormError(null);
    const body: ScoreInput = { name: trimmedName, value: parsed.value };
    if (editing !== undefined) body.id = editing.id;
    if (comment.trim() !== "") body.comment = comment.trim();
    save.mutate(body, { onSuccess: (score) => onClose(score.name) });
  }

  const title = editing === undefined ? `Score ${targetName}` : `Edit the score ${editing.name}`;
  return (
    <Dialog title={title} onClose={() => onClose()}>
      <form onSubmit={submit} noValidate>
        <label className="field">
          <span>Name</span>
          <input
            value={name}
            onChange={(event) => {
              setName(event.target.value);
              setValueText("");
            }}
            list={ids.names}
            maxLength={SCORE_NAME_LENGTH}
            readOnly={editing !== undefined}
            required
            spellCheck={false}
            autoComplete="off"
            aria-describedby={config === undefined ? undefined : ids.rule}
            data-autofocus={editing === undefined ? true : undefined}
          />
          <datalist id={ids.names}>
            {configs.map((candidate) => (
              <option key={candidate.name} value={candidate.name} />
            ))}
          </datalist>
        </label>
        {config === undefined ? (
          <label className="field">
            <span>Kind</span>
            <select
              value={chosenKind}
              onChange={(event) => {
                setChosenKind(event.target.value as ScoreValueKind);
                setValueText("");
              }}
            >
              {SCORE_VALUE_KINDS.map((option) => (
                <option key={option} value={option}>
                  {KIND_NAMES[option]}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <p id={ids.rule} className="muted">
            Configured: {configRuleText(config)}.{config.description === undefined ? "" : ` ${config.description}`}
          </p>
        )}
        <ValueField kind={kind} config={config} value={valueText} onChange={setValueText} id={ids.value} />
        <label className="field">
          <span>Comment (optional)</span>
          <textarea
            value={comment}
            onChange={(event) => setComment(event.target.value)}
            maxLength={SCORE_COMMENT_LENGTH}
            rows={3}
          />
        </label>
        {formError === null ? null : (
          <p className="inline-error" role="alert">
            {formError}
          </p>
        )}
        <InlineError error={save.error} />
        <DialogActions onCancel={() => onClose()} pending={save.isPending} label="Save score" pendingLabel="Saving…" />
      </form>
    </Dialog>
  );
}

function ValueField({
  kind,
  config,
  value,
  onChange,
  id,
}: {
  kind: ScoreValueKind;
  config: ScoreConfig | undefined;
  value: string;
  onChange: (value: string) => void;
  id: string;
}) {
  if (kind === "boolean" || (kind === "categorical" && config?.labels !== undefined)) {
    const options =
      kind === "boolean"
        ? [
            { value: "true", label: "Yes" },
            { value: "false", label: "No" },
          ]
        : (config?.labels ?? []).map((label) => ({ value: label, label }));
    return (
      <label className="field" htmlFor={id}>
        <span>{kind === "boolean" ? "Value" : "Label"}</span>
        <select id={id} value={value} onChange={(event) => onChange(event.target.value)} required>
          <option value="">{kind === "boolean" ? "Choose yes or no" : "Choose a label"}</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <label className="field" htmlFor={id}>
      <span>{kind === "numeric" ? "Value" : "Label"}</span>
      <input
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        inputMode={kind === "numeric" ? "decimal" : "text"}
        autoComplete="off"
        required
      />
    </label>
  );
}
