/** A form dialog's Cancel and submit buttons; the submit one says when the request is under way. */
export function DialogActions({
  onCancel,
  pending,
  label,
  pendingLabel,
}: {
  onCancel: () => void;
  pending: boolean;
  label: string;
  pendingLabel: string;
}) {
  return (
    <div className="dialog__actions">
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}
