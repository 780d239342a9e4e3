/** A message that clears itself: shown for `ms`, then gone (a success note should not linger and go stale). */
import { useCallback, useEffect, useState } from "react";

export const MESSAGE_MS = 5_000;

export function useTransient<T>(ms = MESSAGE_MS): [T | null, (value: T | null) => void] {
  // A new object per `show`, so the same message shown twice restarts its time.
  const [shown, setShown] = useState<{ value: T } | null>(null);
  useEffect(() => {
    if (shown === null) return;
    const timer = window.setTimeout(() => setShown(null), ms);
    return () => window.clearTimeout(timer);
  }, [shown, ms]);
  const show = useCallback((value: T | null) => setShown(value === null ? null : { value }), []);
  return [shown?.value ?? null, show];
}
