/**
 * The session list's filters as URL search parameters (the URL is their home: shareable, back-button friendly).
 * Days are UTC days, as the stats count them, so a link from a chart's day lists exactly that day's sessions.
 */
import type { SessionFilters } from "../api/sessions";

/**
 * A score condition (issue 33), named as the API names them: a score name alone (sessions with a score of that
 * name), or with a range (`scoreMin`/`scoreMax`, numbers), a label (`scoreLabel`) or yes/no (`scoreValue`).
 */
export const SCORE_FILTERS = ["scoreName", "scoreMin", "scoreMax", "scoreLabel", "scoreValue"] as const;
/** Set in the filter form. */
export const FORM_FILTERS = ["q", "agentName", "userId", "status", "from", "to", ...SCORE_FILTERS] as const;
/** Set by a drill-down from the stats (a failure reason, a tool); shown as removable chips. */
export const DRILL_DOWN_FILTERS = ["failureReason", "toolName", "toolError"] as const;
export const FILTER_NAMES = [...FORM_FILTERS, ...DRILL_DOWN_FILTERS] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
export type FilterValues = Record<FilterName, string>;

export const NO_FILTERS: FilterValues = Object.fromEntries(FILTER_NAMES.map((name) => [name, ""])) as FilterValues;

export function readFilters(params: URLSearchParams): FilterValues {
  return Object.fromEntries(FILTER_NAMES.map((name) => [name, params.get(name) ?? ""])) as FilterValues;
}

/** Writes the filters over `current`, keeping other parameters (the environment). */
export function writeFilters(current: URLSearchParams, values: Partial<FilterValues>): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const name of FILTER_NAMES) {
    const value = values[name];
    if (value === undefined) continue;
    if (value.trim() === "") next.delete(name);
    else next.set(name, value.trim());
  }
  return next;
}

/** A session id as the service mints them: searching for one opens it rather than searching names. */
const SESSION_ID = /^ses_[0-9A-HJKMNP-TV-Z]{26}$/i;

export function sessionIdIn(search: string): string | undefined {
  const text = search.trim();
  return SESSION_ID.test(text) ? `ses_${text.slice(4).toUpperCase()}` : undefined;
}

/** A UTC day (YYYY-MM-DD) as the ISO instant the API filters on: its first millisecond, or its last. */
export function dayBoundary(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T${end ? "23:59:59.999" : "00:00:00.000"}Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day ? undefined : date.toISOString();
}

export function toApiFilters(values: FilterValues): SessionFilters {
  const filters: SessionFilters = {};
  for (const name of ["agentName", "userId", "status", ...DRILL_DOWN_FILTERS, ...SCORE_FILTERS] as const) {
    if (values[name] !== "") filters[name] = values[name];
  }
  const search = values.q.trim();
  if (search !== "" && sessionIdIn(search) === undefined) filters.nameContains = search;
  const from = dayBoundary(values.from, false);
  const to = dayBoundary(values.to, true);
  if (from !== undefined) filters.from = from;
  if (to !== undefined) filters.to = to;
  return filters;
}

/** The kinds of score condition the form offers: which of the score parameters it sets. */
export type ScoreCondition = "any" | "range" | "true" | "false" | "label";

/** The condition the score parameters express (the first that is set, as the form sets only one). */
export function scoreConditionOf(values: Pick<FilterValues, (typeof SCORE_FILTERS)[number]>): ScoreCondition {
  if (values.scoreMin !== "" || values.scoreMax !== "") return "range";
  if (values.scoreLabel !== "") return "label";
  if (values.scoreValue === "true" || values.scoreValue === "false") return values.scoreValue;
  return "any";
}

/** A score filter in words, for its chip: "helpfulness from 0.5 to 1", "resolved is true", "tone is friendly". */
export function describeScoreFilter(values: Pick<FilterValues, (typeof SCORE_FILTERS)[number]>): string {
  const name = values.scoreName === "" ? "(no name)" : values.scoreName;
  switch (scoreConditionOf(values)) {
    case "range":
      if (values.scoreMin !== "" && values.scoreMax !== "")
        return `${name} from ${values.scoreMin} to ${values.scoreMax}`;
      return values.scoreMin !== "" ? `${name} at least ${values.scoreMin}` : `${name} at most ${values.scoreMax}`;
    case "label":
      return `${name} is ${values.scoreLabel}`;
    case "true":
    case "false":
      return `${name} is ${values.scoreValue}`;
    default:
      return `${name} (any value)`;
  }
}

/** The sessions page's URL for these filters (a drill-down link), in `environment`'s terms. */
export function sessionsLink(values: Partial<FilterValues>, environment: "live" | "test"): string {
  const params = writeFilters(new URLSearchParams(), values);
  if (environment === "test") params.set("env", "test");
  const query = params.toString();
  return query === "" ? "/sessions" : `/sessions?${query}`;
}
