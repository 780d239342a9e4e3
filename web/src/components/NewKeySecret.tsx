/** A key's plaintext, shown once: the key, a copy button and a clear warning. */
export function NewKeySecret({ plaintext }: { plaintext: string }) {
  return (
    <div className="secret">
      <p className="warning" role="alert">
        <strong>Copy this key now.</strong> It is shown only once: the service keeps only a hash of it and can never
        show it again.
      </p>
      <label className="field">
        <span>API key</span>
        <input className="secret__value" readOnly value={plaintext} onFocus={(event) => event.target.select()} />
      </label>
    </div>
  );
}
