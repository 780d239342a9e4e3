/** The session list's filters as URL search parameters (the URL is their home: shareable, back-button friendly). */
import type { SessionFilters } from "../api/sessions";

export const FILTER_NAMES = ["agentName", "userId", "status", "from", "to"] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
export type FilterValues = Record<FilterName, string>;

export function readFilters(params: URLSearchParams): FilterValues {
  return {
    agentName: params.get("agentName") ?? "",
    userId: params.get("userId") ?? "",
    status: params.get("status") ?? "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
  };
}

/** Writes the filters over `current`, keeping other parameters (the environment). */
export function writeFilters(current: URLSearchParams, values: FilterValues): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const name of FILTER_NAMES) {
    const value = values[name].trim();
    if (value === "") next.delete(name);
    else next.set(name, value);
  }
  return next;
}

/** A day (YYYY-MM-DD, the user's time zone) as the ISO instant the API filters on: its start, or its end. */
export function dayBoundary(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T${end ? "23:59:59.999" : "00:00:00.000"}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function toApiFilters(values: FilterValues): SessionFilters {
  const filters: SessionFilters = {};
  if (values.agentName !== "") filters.agentName = values.agentName;
  if (values.userId !== "") filters.userId = values.userId;
  if (values.status !== "") filters.status = values.status;
  const from = dayBoundary(values.from, false);
  const to = dayBoundary(values.to, true);
  if (from !== undefined) filters.from = from;
  if (to !== undefined) filters.to = to;
  return filters;
}
