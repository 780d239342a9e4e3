/** A decision's confidence (0–1) as a bar, with the number in words for everyone. */
export function ConfidenceBar({ value }: { value: number }) {
  const percent = Math.round(Math.min(1, Math.max(0, value)) * 100);
  const level = value < 0.5 ? "low" : value < 0.8 ? "medium" : "high";
  return (
    <div className="confidence">
      <span className="confidence__label">Confidence {percent}%</span>
      <span className="confidence__track" aria-hidden="true">
        <span className={`confidence__fill confidence__fill--${level}`} style={{ width: `${percent}%` }} />
      </span>
    </div>
  );
}
