/** An element's content width in pixels, kept up to date as it resizes (charts choose their axis labels from it). */
import { useCallback, useState } from "react";

/**
 * A ref callback for the element, and its width: `undefined` until measured (or where the browser has no
 * ResizeObserver).
 */
export function useElementWidth<T extends Element>(): [
  (element: T | null) => (() => void) | undefined,
  number | undefined,
] {
  const [width, setWidth] = useState<number>();
  const ref = useCallback((element: T | null) => {
    if (element === null || typeof ResizeObserver === "undefined") return undefined;
    const observer = new ResizeObserver((entries) => {
      const measured = entries[0]?.contentRect.width;
      if (measured !== undefined) setWidth(Math.round(measured));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}
