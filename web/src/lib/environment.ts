/** The environment (live/test) lives in the URL (`?env=test`), so a link shows the same data to whoever opens it. */
import { useCallback } from "react";
import { useSearchParams } from "react-router";
import type { Environment } from "../api/types";

export function parseEnvironment(value: string | null): Environment {
  return value === "test" ? "test" : "live";
}

export function useEnvironment(): [Environment, (next: Environment) => void] {
  const [params, setParams] = useSearchParams();
  const environment = parseEnvironment(params.get("env"));
  const setEnvironment = useCallback(
    (next: Environment) => {
      setParams(
        (current) => {
          // Filters and paging belong to one environment: switching starts afresh.
          const fresh = new URLSearchParams();
          for (const [name, value] of current) if (name !== "env" && name !== "cursor") fresh.set(name, value);
          if (next === "test") fresh.set("env", "test");
          return fresh;
        },
        { replace: false },
      );
    },
    [setParams],
  );
  return [environment, setEnvironment];
}

/** A path carrying the current environment along. */
export function withEnvironment(path: string, environment: Environment): string {
  if (environment === "live") return path;
  return `${path}${path.includes("?") ? "&" : "?"}env=test`;
}
