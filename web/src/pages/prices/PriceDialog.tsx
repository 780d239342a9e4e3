/** Add or change an organisation price: the model, the day it applies from, and its rates per million tokens. */
import { type FormEvent, useState } from "react";
import { useSetPrice } from "../../api/prices";
import type { OrganisationPrice, PriceRates } from "../../api/types";
import { Dialog } from "../../components/Dialog";
import { DialogActions } from "../../components/DialogActions";
import { InlineError } from "../../components/ErrorState";
import { today } from "../../lib/stats-period";
import { isPriceDay, MAX_MODEL_LENGTH, parseRate, RATE_FIELDS, type RateField } from "./price-logic";

export interface PriceDialogProps {
  /** The price to change (its model and day are then fixed), or a model to price (from the unpriced list). */
  editing?: OrganisationPrice;
  model?: string;
  /** `saved`: the model priced, once stored. */
  onClose: (saved?: string) => void;
}

const HINTS: Record<RateField, string> = {
  input: "Prompt tokens",
  output: "Completion tokens",
  cacheRead: "Optional; empty: cached tokens cost Input",
  cacheWrite: "Optional; empty: cache writes cost Input",
  reasoning: "Optional; empty: reasoning costs Output",
};

export function PriceDialog({ editing, model: suggested, onClose }: PriceDialogProps) {
  const save = useSetPrice();
  const [model, setModel] = useState(editing?.model ?? suggested ?? "");
  const [effectiveFrom, setEffectiveFrom] = useState(editing?.effectiveFrom ?? today());
  const [rates, setRates] = useState<Record<RateField, string>>(() => {
    const text = (value: number | undefined) => (value === undefined ? "" : String(value));
    return {
      input: text(editing?.input),
      output: text(editing?.output),
      cacheRead: text(editing?.cacheRead),
      cacheWrite: text(editing?.cacheWrite),
      reasoning: text(editing?.reasoning),
    };
  });
  const [formError, setFormError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = model.trim();
    if (name === "" || name.length > MAX_MODEL_LENGTH) {
      return setFormError(`Name the model (1 to ${MAX_MODEL_LENGTH} characters), as your calls send it.`);
    }
    if (!isPriceDay(effectiveFrom)) return setFormError("Choose the day the price applies from.");
    const parsed: Partial<Record<RateField, number>> = {};
    for (const [field, label] of RATE_FIELDS) {
      const value = parseRate(rates[field]);
      if (typeof value === "object") return setFormError(`${label} must be ${value.error}.`);
      if (value !== undefined) parsed[field] = value;
    }
    if (parsed.input === undefined || parsed.output === undefined) {
      return setFormError("Input and Output are needed.");
    }
    setFormError(null);
    const body: PriceRates = { ...parsed, input: parsed.input, output: parsed.output };
    // Long-prompt tiers are set through the API; a change here keeps them.
    if (editing?.tiers !== undefined) body.tiers = editing.tiers;
    save.mutate({ model: name, effectiveFrom, ...body }, { onSuccess: (price) => onClose(price.model) });
  }

  return (
    <Dialog
      title={editing === undefined ? "Add a price" : `Change the price of ${editing.model}`}
      onClose={() => onClose()}
    >
      <form onSubmit={submit} noValidate>
        <label className="field">
          <span>Model</span>
          <input
            value={model}
            onChange={(event) => setModel(event.target.value)}
            maxLength={MAX_MODEL_LENGTH}
            readOnly={editing !== undefined}
            required
            spellCheck={false}
            autoComplete="off"
            data-autofocus={editing === undefined && suggested === undefined ? true : undefined}
          />
        </label>
        <label className="field">
          <span>Applies from (UTC day)</span>
          <input
            type="date"
            value={effectiveFrom}
            onChange={(event) => setEffectiveFrom(event.target.value)}
            readOnly={editing !== undefined}
            required
          />
        </label>
        <fieldset className="field">
          <legend>USD per million tokens</legend>
          <div className="price-rates">
            {RATE_FIELDS.map(([field, label], index) => (
              <div key={field} className="field">
                <label htmlFor={`price-rate-${field}`}>{label}</label>
                <input
                  id={`price-rate-${field}`}
                  inputMode="decimal"
                  value={rates[field]}
                  onChange={(event) => setRates((current) => ({ ...current, [field]: event.target.value }))}
                  aria-describedby={`price-hint-${field}`}
                  required={field === "input" || field === "output"}
                  data-autofocus={index === 0 && (editing !== undefined || suggested !== undefined) ? true : undefined}
                />
                <small id={`price-hint-${field}`} className="muted">
                  {HINTS[field]}
                </small>
              </div>
            ))}
          </div>
        </fieldset>
        {editing?.tiers !== undefined ? (
          <p className="muted">This price has long-prompt tiers; they are kept (change them through the API).</p>
        ) : null}
        {formError === null ? null : (
          <p className="inline-error" role="alert">
            {formError}
          </p>
        )}
        <InlineError error={save.error} />
        <DialogActions onCancel={() => onClose()} pending={save.isPending} label="Save price" pendingLabel="Saving…" />
      </form>
    </Dialog>
  );
}
