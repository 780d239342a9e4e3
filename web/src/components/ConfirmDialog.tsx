/** "Are you sure?" for destructive actions: Cancel has the focus, Escape cancels. */
import { type ReactNode, useId } from "react";
import { Dialog } from "./Dialog";
import { InlineError } from "./ErrorState";

export interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending?: boolean;
  error?: unknown;
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  pending = false,
  error,
}: ConfirmDialogProps) {
  const descriptionId = useId();
  return (
    <Dialog title={title} onClose={onCancel} describedBy={descriptionId}>
      <div id={descriptionId} className="dialog__body">
        {children}
      </div>
      <InlineError error={error} />
      <div className="dialog__actions">
        <button type="button" className="button" onClick={onCancel} data-autofocus>
          Cancel
        </button>
        <button type="button" className="button button--danger" onClick={onConfirm} disabled={pending}>
          {pending ? "Working…" : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
