/**
 * The monitor form's fields made into a monitor definition (the body of POST/PUT /api/alerts/monitors), with an
 * error per field where the API would refuse it; and the API's own 400 issues placed on the same fields. Pure.
 */

import type {
  Comparison,
  Monitor,
  MonitorDefinition,
  MonitorFilters,
  MonitorMetric,
  NoDataRule,
} from "../../api/alert-types";
import type { ApiIssue } from "../../api/errors";
import { type FilterName, METRIC_FILTERS, METRICS, REQUIRED_FILTERS } from "../../lib/monitor-text";

/** The API's bounds (the shared contract of issue 34). */
export const MONITOR_LIMITS = {
  nameLength: 100,
  descriptionLength: 1000,
  filterLength: 256,
  windowMinutes: { min: 5, max: 10_080, step: 5 },
  minSessions: 1_000_000,
  renotifyMinutes: { min: 5, max: 1440 },
  destinations: 5,
  /** The largest threshold's magnitude (cost in USD, durations in ms, counts). */
  threshold: 1e12,
} as const;

export interface MonitorFields {
  name: string;
  description: string;
  enabled: boolean;
  metric: MonitorMetric;
  filters: Record<FilterName, string>;
  windowMinutes: string;
  comparison: Comparison;
  warningThreshold: string;
  alertThreshold: string;
  minSessions: string;
  noData: NoDataRule;
  renotifyMinutes: string;
  notifyOnRecovery: boolean;
  destinationIds: string[];
}

/** A field's name as the API's issues name it: "name", "alertThreshold", "filters.tool"… */
export type FieldPath = Exclude<keyof MonitorFields, "filters"> | `filters.${FilterName}`;
export type FieldErrors = Partial<Record<FieldPath, string>>;

const FILTER_NAMES: readonly FilterName[] = ["agent", "user", "model", "tool", "score", "label"];

export function fieldsOf(monitor?: MonitorDefinition): MonitorFields {
  const filters = Object.fromEntries(FILTER_NAMES.map((name) => [name, monitor?.filters[name] ?? ""])) as Record<
    FilterName,
    string
  >;
  return {
    name: monitor?.name ?? "",
    description: monitor?.description ?? "",
    enabled: monitor?.enabled ?? true,
    metric: monitor?.metric ?? "failure_rate",
    filters,
    windowMinutes: String(monitor?.windowMinutes ?? 15),
    comparison: monitor?.comparison ?? "above",
    warningThreshold: monitor?.warningThreshold === undefined ? "" : String(monitor.warningThreshold),
    alertThreshold: monitor === undefined ? "" : String(monitor.alertThreshold),
    minSessions: String(monitor?.minSessions ?? 10),
    noData: monitor?.noData ?? "keep",
    renotifyMinutes: String(monitor?.renotifyMinutes ?? 0),
    notifyOnRecovery: monitor?.notifyOnRecovery ?? true,
    destinationIds: [...(monitor?.destinationIds ?? [])],
  };
}

/**
 * The definition part of a stored monitor (what PUT and the preview take back): its fields picked one by one, so a
 * field the API adds to a monitor is never echoed into a body it would refuse as unknown.
 */
export function definitionOf(monitor: Monitor): MonitorDefinition {
  const definition: MonitorDefinition = {
    name: monitor.name,
    enabled: monitor.enabled,
    metric: monitor.metric,
    filters: Object.fromEntries(
      FILTER_NAMES.flatMap((name) => (monitor.filters[name] === undefined ? [] : [[name, monitor.filters[name]]])),
    ),
    windowMinutes: monitor.windowMinutes,
    comparison: monitor.comparison,
    alertThreshold: monitor.alertThreshold,
    minSessions: monitor.minSessions,
    noData: monitor.noData,
    renotifyMinutes: monitor.renotifyMinutes,
    notifyOnRecovery: monitor.notifyOnRecovery,
    destinationIds: [...monitor.destinationIds],
  };
  if (monitor.description !== undefined && monitor.description !== null) definition.description = monitor.description;
  if (monitor.warningThreshold !== undefined && monitor.warningThreshold !== null) {
    definition.warningThreshold = monitor.warningThreshold;
  }
  return definition;
}

function wholeNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : null;
}

function decimal(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

function thresholdProblem(metric: MonitorMetric, value: number): string | null {
  const unit = METRICS[metric].unit;
  if (unit === "percent" && (value < 0 || value > 100)) return "A rate is a percentage from 0 to 100.";
  if (unit !== "score" && value < 0) return "This figure is never negative.";
  if (Math.abs(value) > MONITOR_LIMITS.threshold) return "At most a million million (1e12).";
  return null;
}

/** The filters the metric takes, trimmed, without the empty ones. */
function filtersOf(fields: MonitorFields, errors: FieldErrors): MonitorFilters {
  const allowed = METRIC_FILTERS[fields.metric];
  const filters: MonitorFilters = {};
  for (const name of allowed) {
    const value = fields.filters[name].trim();
    if ([...value].length > MONITOR_LIMITS.filterLength) {
      errors[`filters.${name}`] = `At most ${MONITOR_LIMITS.filterLength} characters.`;
    } else if (value !== "") {
      filters[name] = value;
    }
  }
  for (const name of REQUIRED_FILTERS[fields.metric] ?? []) {
    if (filters[name] === undefined) errors[`filters.${name}`] = `${METRICS[fields.metric].label} needs a ${name}.`;
  }
  const narrowing = (["user", "model", "tool", "score"] as const).filter((name) => filters[name] !== undefined);
  if (narrowing.length > 1) {
    errors[`filters.${narrowing[1] ?? "user"}`] = `Filter by one of ${narrowing.join(" or ")}, not both.`;
  }
  return filters;
}

/**
 * The definition the fields make, or the errors that keep it from being one (by field). The checks are the API's,
 * so most mistakes are shown before a request; the API's 400 is still shown on the fields it names.
 */
export function monitorDefinition(fields: MonitorFields): { definition: MonitorDefinition } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = fields.name.trim();
  if (name === "" || [...name].length > MONITOR_LIMITS.nameLength) {
    errors.name = `Name the monitor (1 to ${MONITOR_LIMITS.nameLength} characters).`;
  }
  const description = fields.description.trim();
  if ([...description].length > MONITOR_LIMITS.descriptionLength) {
    errors.description = `At most ${MONITOR_LIMITS.descriptionLength} characters.`;
  }
  const filters = filtersOf(fields, errors);
  const { min, max, step } = MONITOR_LIMITS.windowMinutes;
  const windowMinutes = wholeNumber(fields.windowMinutes);
  if (windowMinutes === null || windowMinutes < min || windowMinutes > max || windowMinutes % step !== 0) {
    errors.windowMinutes = `A window is ${min} to ${max} minutes (7 days), in steps of ${step}.`;
  }
  const alertThreshold = decimal(fields.alertThreshold);
  if (alertThreshold === null) errors.alertThreshold = "Give the alert threshold as a number.";
  else {
    const problem = thresholdProblem(fields.metric, alertThreshold);
    if (problem !== null) errors.alertThreshold = problem;
  }
  let warningThreshold: number | undefined;
  if (fields.warningThreshold.trim() !== "") {
    const value = decimal(fields.warningThreshold);
    const problem = value === null ? "A number, or empty for no warning." : thresholdProblem(fields.metric, value);
    if (problem !== null) errors.warningThreshold = problem;
    else if (value !== null) {
      warningThreshold = value;
      if (alertThreshold !== null) {
        const nearSide = fields.comparison === "above" ? value < alertThreshold : value > alertThreshold;
        if (!nearSide) {
          errors.warningThreshold = `The warning comes before the alert: ${fields.comparison === "above" ? "below" : "above"} ${alertThreshold}.`;
        }
      }
    }
  }
  const minSessions = wholeNumber(fields.minSessions);
  if (minSessions === null || minSessions > MONITOR_LIMITS.minSessions) {
    errors.minSessions = `A whole number from 0 to ${MONITOR_LIMITS.minSessions.toLocaleString("en-GB")}.`;
  }
  const renotify = wholeNumber(fields.renotifyMinutes);
  const { min: renotifyMin, max: renotifyMax } = MONITOR_LIMITS.renotifyMinutes;
  if (renotify === null || (renotify !== 0 && (renotify < renotifyMin || renotify > renotifyMax))) {
    errors.renotifyMinutes = `0 for never, or ${renotifyMin} to ${renotifyMax} minutes.`;
  }
  if (fields.destinationIds.length > MONITOR_LIMITS.destinations) {
    errors.destinationIds = `At most ${MONITOR_LIMITS.destinations} destinations.`;
  }
  if (Object.keys(errors).length > 0 || windowMinutes === null || alertThreshold === null) return { errors };
  const definition: MonitorDefinition = {
    name,
    enabled: fields.enabled,
    metric: fields.metric,
    filters,
    windowMinutes,
    comparison: fields.comparison,
    alertThreshold,
    minSessions: minSessions ?? 0,
    noData: fields.noData,
    renotifyMinutes: renotify ?? 0,
    notifyOnRecovery: fields.notifyOnRecovery,
    destinationIds: [...fields.destinationIds],
  };
  if (description !== "") definition.description = description;
  if (warningThreshold !== undefined) definition.warningThreshold = warningThreshold;
  return { definition };
}

/**
 * The definition to preview while the form is being filled in: the form's, without what the figure does not depend
 * on (a stand-in name where none is given yet, no destinations); null while a field the figure depends on is wrong.
 */
export function previewDefinition(fields: MonitorFields): MonitorDefinition | null {
  const result = monitorDefinition({
    ...fields,
    name: fields.name.trim() === "" ? "Preview" : fields.name,
    description: "",
    renotifyMinutes: "0",
    destinationIds: [],
  });
  return "definition" in result ? result.definition : null;
}

const FIELD_PATHS = new Set<string>([
  "name",
  "description",
  "enabled",
  "metric",
  "windowMinutes",
  "comparison",
  "warningThreshold",
  "alertThreshold",
  "minSessions",
  "noData",
  "renotifyMinutes",
  "notifyOnRecovery",
  "destinationIds",
  ...FILTER_NAMES.map((name) => `filters.${name}`),
]);

/**
 * The API's 400 issues placed on the form's fields ("destinationIds.2" on the destinations; "filters" on the
 * metric); the ones naming no field are returned apart, to show above the buttons.
 */
export function issuesByField(issues: readonly ApiIssue[]): { fields: FieldErrors; other: ApiIssue[] } {
  const fields: FieldErrors = {};
  const other: ApiIssue[] = [];
  for (const issue of issues) {
    const segments = issue.path.split(".");
    const path = FIELD_PATHS.has(issue.path)
      ? issue.path
      : FIELD_PATHS.has(segments[0] ?? "")
        ? segments[0]
        : segments[0] === "filters"
          ? "metric"
          : null;
    if (path === null || path === undefined) other.push(issue);
    else {
      const key = path as FieldPath;
      fields[key] = fields[key] === undefined ? issue.message : `${fields[key]} ${issue.message}`;
    }
  }
  return { fields, other };
}
