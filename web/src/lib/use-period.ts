/** The stats period in the URL (`days`): the URL keeps it across pages, reloads and shared links. */
import { useCallback } from "react";
import { useSearchParams } from "react-router";
import { parsePeriod } from "./stats-period";

/** The period the URL asks for (undefined: none), and a setter that keeps the other parameters. */
export function usePeriodParam(): [number | undefined, (days: number) => void] {
  const [params, setParams] = useSearchParams();
  const days = parsePeriod(params.get("days"));
  const setDays = useCallback(
    (value: number) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        next.set("days", String(value));
        return next;
      }),
    [setParams],
  );
  return [days, setDays];
}
