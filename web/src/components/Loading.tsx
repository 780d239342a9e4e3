/** A polite loading message (announced once, not a spinner without words). */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="state state--loading" role="status">
      {label}
    </p>
  );
}
