/**
 * The rules of a monitor definition that span fields (each field's own bounds are the request schema's,
 * schemas/monitor-schemas.ts): which filters a metric takes, thresholds in the metric's range and on the right side
 * of each other. Pure: returns the issues, field by field, for a 400 that names them.
 */
import type { FieldIssue } from "./errors.js";
import {
  MONITOR_LIMITS,
  type MonitorDefinition,
  type MonitorFilterKey,
  type MonitorMetric,
  PERCENT_METRICS,
  SESSION_METRICS,
} from "./monitor.js";

/** The metrics each filter may be used with (`agent`: any). */
const FILTER_METRICS: { readonly [Key in Exclude<MonitorFilterKey, "agent">]: ReadonlySet<MonitorMetric> } = {
  user: SESSION_METRICS,
  model: new Set(["cost", "tokens"]),
  tool: new Set(["tool_failure_rate"]),
  score: new Set(["score_mean", "label_share"]),
  label: new Set(["label_share"]),
};

/** The filters a metric cannot do without. */
const REQUIRED_FILTERS: { readonly [Metric in MonitorMetric]?: readonly MonitorFilterKey[] } = {
  tool_failure_rate: ["tool"],
  score_mean: ["score"],
  label_share: ["score", "label"],
};

/** Filters that each pick one series facet: a monitor reads one facet, so at most one of them. */
const FACET_FILTERS = ["user", "model", "tool", "score"] as const;

function filterIssues(definition: MonitorDefinition): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { metric, filters } = definition;
  for (const key of Object.keys(FILTER_METRICS) as (keyof typeof FILTER_METRICS)[]) {
    if (filters[key] !== undefined && !FILTER_METRICS[key].has(metric)) {
      issues.push({
        path: `filters.${key}`,
        message: `Not with ${metric}: ${key} filters ${[...FILTER_METRICS[key]].join(", ")}`,
      });
    }
  }
  for (const key of REQUIRED_FILTERS[metric] ?? []) {
    if (filters[key] === undefined) issues.push({ path: `filters.${key}`, message: `Required by ${metric}` });
  }
  const facets = FACET_FILTERS.filter((key) => filters[key] !== undefined);
  if (facets.length > 1) {
    issues.push({ path: "filters", message: `At most one of user, model, tool, score; got ${facets.join(", ")}` });
  }
  return issues;
}

/** The range a metric's thresholds may take: percentages 0–100, score means any sign, the rest 0 or more. */
export function thresholdRange(metric: MonitorMetric): { readonly min: number; readonly max: number } {
  if (PERCENT_METRICS.has(metric)) return { min: 0, max: 100 };
  if (metric === "score_mean") return { min: -MONITOR_LIMITS.maxThreshold, max: MONITOR_LIMITS.maxThreshold };
  return { min: 0, max: MONITOR_LIMITS.maxThreshold };
}

function thresholdIssues(definition: MonitorDefinition): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { metric, comparison, alertThreshold, warningThreshold } = definition;
  const { min, max } = thresholdRange(metric);
  const inRange = (path: string, value: number) => {
    if (value < min || value > max) issues.push({ path, message: `Must be from ${min} to ${max} for ${metric}` });
  };
  inRange("alertThreshold", alertThreshold);
  if (warningThreshold === undefined) return issues;
  inRange("warningThreshold", warningThreshold);
  if (comparison === "above" && !(warningThreshold < alertThreshold)) {
    issues.push({ path: "warningThreshold", message: "Must be below alertThreshold when the comparison is above" });
  }
  if (comparison === "below" && !(warningThreshold > alertThreshold)) {
    issues.push({ path: "warningThreshold", message: "Must be above alertThreshold when the comparison is below" });
  }
  return issues;
}

/** Every cross-field issue of a definition whose fields are each valid (empty: the definition is valid). */
export function monitorDefinitionIssues(definition: MonitorDefinition): FieldIssue[] {
  return [...filterIssues(definition), ...thresholdIssues(definition)];
}
