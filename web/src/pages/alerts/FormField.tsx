/** A labelled form control with its hint and its error, tied to it (aria-describedby, aria-invalid). */
import { type ReactNode, useId } from "react";

export interface ControlProps {
  id: string;
  "aria-invalid": boolean | undefined;
  "aria-describedby": string | undefined;
}

export function FormField({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hint === undefined ? null : hintId, error === undefined ? null : errorId].filter(
    (value) => value !== null,
  );
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      {children({
        id,
        "aria-invalid": error === undefined ? undefined : true,
        "aria-describedby": described.length === 0 ? undefined : described.join(" "),
      })}
      {hint === undefined ? null : (
        <p id={hintId} className="field__hint muted">
          {hint}
        </p>
      )}
      {error === undefined ? null : (
        <p id={errorId} className="field__error">
          {error}
        </p>
      )}
    </div>
  );
}
