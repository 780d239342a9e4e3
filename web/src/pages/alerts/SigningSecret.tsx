/** A webhook's signing secret, shown once (after creating or rotating): the secret, a copy button, a clear warning. */
import { CopyButton } from "../../components/CopyButton";
import { Dialog } from "../../components/Dialog";

export function SigningSecretDialog({
  title,
  secret,
  onClose,
}: {
  title: string;
  secret: string;
  onClose: () => void;
}) {
  return (
    <Dialog title={title} onClose={onClose} wide>
      <div className="secret">
        <p className="warning" role="alert">
          <strong>Copy this secret now.</strong> It is shown only once. Your receiver checks each request's{" "}
          <code>ats-signature</code> header with it (HMAC-SHA256 of the timestamp and the body).
        </p>
        <label className="field">
          <span>Signing secret</span>
          <input className="secret__value" readOnly value={secret} onFocus={(event) => event.target.select()} />
        </label>
      </div>
      <div className="dialog__actions">
        <CopyButton text={secret} label="Copy secret" />
        <button type="button" className="button button--primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
