/**
 * A monitor in words: its metric's name and unit, its filters, its window, its figures as the metric counts them
 * (rates in percent, cost in USD, durations in ms). Pure.
 */
import type { Monitor, MonitorDefinition, MonitorFilters, MonitorMetric, MonitorStatus } from "../api/alert-types";
import { formatCost, formatDuration, formatNumber } from "./format";

export type MetricUnit = "percent" | "usd" | "ms" | "count" | "score";

interface MetricInfo {
  label: string;
  unit: MetricUnit;
  /** What a window's samples are, for `minSessions`. */
  samples: string;
}

export const METRICS: Record<MonitorMetric, MetricInfo> = {
  failure_rate: { label: "Failure rate", unit: "percent", samples: "ended sessions" },
  failed_sessions: { label: "Failed sessions", unit: "count", samples: "ended sessions" },
  error_events: { label: "Error events", unit: "count", samples: "ended sessions" },
  sessions_started: { label: "Sessions started", unit: "count", samples: "started sessions" },
  cost: { label: "Cost", unit: "usd", samples: "ended sessions" },
  tokens: { label: "Tokens", unit: "count", samples: "ended sessions" },
  duration_p50: { label: "Session duration, median (p50)", unit: "ms", samples: "ended sessions" },
  duration_p95: { label: "Session duration, p95", unit: "ms", samples: "ended sessions" },
  duration_p99: { label: "Session duration, p99", unit: "ms", samples: "ended sessions" },
  tool_failure_rate: { label: "Tool failure rate", unit: "percent", samples: "tool calls" },
  score_mean: { label: "Score mean", unit: "score", samples: "scores" },
  label_share: { label: "Label share", unit: "percent", samples: "scores" },
};

/** The filters each metric takes (the API refuses the others): agent always, the rest by metric. */
export type FilterName = keyof MonitorFilters;
const SESSION_METRIC_FILTERS: readonly FilterName[] = ["agent", "user"];
export const METRIC_FILTERS: Record<MonitorMetric, readonly FilterName[]> = {
  failure_rate: SESSION_METRIC_FILTERS,
  failed_sessions: SESSION_METRIC_FILTERS,
  error_events: SESSION_METRIC_FILTERS,
  sessions_started: SESSION_METRIC_FILTERS,
  cost: ["agent", "user", "model"],
  tokens: ["agent", "user", "model"],
  duration_p50: SESSION_METRIC_FILTERS,
  duration_p95: SESSION_METRIC_FILTERS,
  duration_p99: SESSION_METRIC_FILTERS,
  tool_failure_rate: ["agent", "tool"],
  score_mean: ["agent", "score"],
  label_share: ["agent", "score", "label"],
};

/** The filters a metric cannot do without. */
export const REQUIRED_FILTERS: Partial<Record<MonitorMetric, readonly FilterName[]>> = {
  tool_failure_rate: ["tool"],
  score_mean: ["score"],
  label_share: ["score", "label"],
};

/** A threshold's unit after its input ("%", "USD", "ms"), or null for counts and score means. */
export function unitSuffix(metric: MonitorMetric): string | null {
  const unit = METRICS[metric].unit;
  if (unit === "percent") return "%";
  if (unit === "usd") return "USD";
  if (unit === "ms") return "ms";
  return null;
}

/** A figure or threshold as its metric counts it: "12.5%", "$3.20", "1.2 s", "1,204", "0.82"; "—" for none. */
export function formatFigure(metric: MonitorMetric, value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  switch (METRICS[metric].unit) {
    case "percent":
      return `${Math.round(value * 10) / 10}%`;
    case "usd":
      return formatCost(value);
    case "ms":
      return formatDuration(value);
    case "score":
      return String(Math.round(value * 1000) / 1000);
    default:
      return formatNumber(Math.round(value * 100) / 100);
  }
}

/** "5 min", "1 h", "1 h 30 min", "1 day", "7 days". */
export function formatWindow(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? "1 day" : `${minutes / 1440} days`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

const FILTER_WORDS: Record<FilterName, string> = {
  agent: "agent",
  user: "user",
  model: "model",
  tool: "tool",
  score: "score",
  label: "label",
};

/** "Failure rate of agent support-bot, user 42" / "Score mean of score helpfulness, all agents". */
export function describeMetric(definition: Pick<MonitorDefinition, "metric" | "filters">): string {
  const parts = (Object.keys(FILTER_WORDS) as FilterName[]).flatMap((name) => {
    const value = definition.filters[name];
    return value === undefined || value === "" ? [] : [`${FILTER_WORDS[name]} ${value}`];
  });
  if (definition.filters.agent === undefined || definition.filters.agent === "") parts.push("all agents");
  return `${METRICS[definition.metric].label} of ${parts.join(", ")}`;
}

/** "above 5% (warning at 2%)". */
export function describeThresholds(
  definition: Pick<MonitorDefinition, "metric" | "comparison" | "alertThreshold" | "warningThreshold">,
): string {
  const alert = `${definition.comparison} ${formatFigure(definition.metric, definition.alertThreshold)}`;
  return definition.warningThreshold === undefined
    ? alert
    : `${alert} (warning at ${formatFigure(definition.metric, definition.warningThreshold)})`;
}

export const STATUS_WORDS: Record<MonitorStatus, string> = { ok: "OK", warning: "Warning", alert: "Alert" };

/** The last figure against the alert threshold ("7.5% vs 5%"), or why there is none. */
export function stateSummary(monitor: Monitor): string {
  const { state } = monitor;
  if (!monitor.enabled) return "Disabled";
  if (state.evaluatedAt === null) return "Not evaluated yet";
  if (state.figure === null) return `No data (${formatNumber(state.samples)} ${METRICS[monitor.metric].samples})`;
  return `${formatFigure(monitor.metric, state.figure)} vs ${formatFigure(monitor.metric, monitor.alertThreshold)}`;
}
