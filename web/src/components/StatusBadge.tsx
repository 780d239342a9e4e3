/** A status as a coloured badge with its word (colour is never the only signal). */
export function StatusBadge({ status, label = status }: { status: string; label?: string }) {
  return <span className={`badge badge--${status}`}>{label}</span>;
}
