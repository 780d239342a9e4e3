/**
 * A monitor (issue 34): one figure of an organisation's environment over a sliding window, compared with a warning
 * and an alert threshold; its state and the history of its changes. Types, names and bounds; pure.
 */
import type { MonitorStatus } from "./alert-notification.js";
import type { Environment } from "./api-key.js";

export const MONITOR_METRICS = [
  "failure_rate",
  "failed_sessions",
  "error_events",
  "sessions_started",
  "cost",
  "tokens",
  "duration_p50",
  "duration_p95",
  "duration_p99",
  "tool_failure_rate",
  "score_mean",
  "label_share",
] as const;
export type MonitorMetric = (typeof MONITOR_METRICS)[number];

export const MONITOR_COMPARISONS = ["above", "below"] as const;
export type MonitorComparison = (typeof MONITOR_COMPARISONS)[number];

/** What a window with fewer samples than `minSessions` means: ok, the state it had, or alert. */
export const NO_DATA_RULES = ["ok", "keep", "alert"] as const;
export type NoDataRule = (typeof NO_DATA_RULES)[number];

/** The filters a monitor may name, exactly these keys (the series consumer reads them from the stored items). */
export const MONITOR_FILTER_KEYS = ["agent", "user", "model", "tool", "score", "label"] as const;
export type MonitorFilterKey = (typeof MONITOR_FILTER_KEYS)[number];
export type MonitorFilters = { readonly [Key in MonitorFilterKey]?: string | undefined };

export interface MonitorDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  readonly enabled: boolean;
  readonly metric: MonitorMetric;
  readonly filters: MonitorFilters;
  readonly windowMinutes: number;
  readonly comparison: MonitorComparison;
  readonly warningThreshold?: number | undefined;
  readonly alertThreshold: number;
  readonly minSessions: number;
  readonly noData: NoDataRule;
  readonly renotifyMinutes: number;
  readonly notifyOnRecovery: boolean;
  readonly destinationIds: readonly string[];
}

/** Where a monitor stands after its last evaluation that changed anything. */
export interface MonitorState {
  readonly status: MonitorStatus;
  /** When it entered `status` (null: never evaluated). */
  readonly since: string | null;
  readonly figure: number | null;
  readonly samples: number;
  readonly evaluatedAt: string | null;
  readonly windowStart: string | null;
  readonly windowEnd: string | null;
}

export interface Monitor extends MonitorDefinition {
  readonly id: string;
  readonly environment: Environment;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly createdBy: string;
  readonly state: MonitorState;
}

export type HistoryKind = "change" | "renotify";

/** One state change (or renotification) of a monitor, with the figure and the window it was computed on. */
export interface HistoryEntry {
  readonly id: string;
  readonly at: string;
  readonly from: MonitorStatus;
  readonly to: MonitorStatus;
  readonly kind: HistoryKind;
  readonly figure: number | null;
  readonly samples: number;
  readonly threshold: number | null;
  readonly windowStart: string;
  readonly windowEnd: string;
  /** The notification sent for it (a recovery without `notifyOnRecovery` names the one it did not send). */
  readonly notificationId: string;
}

/** The state of a monitor never evaluated. */
export const INITIAL_MONITOR_STATE: MonitorState = {
  status: "ok",
  since: null,
  figure: null,
  samples: 0,
  evaluatedAt: null,
  windowStart: null,
  windowEnd: null,
};

export const MONITOR_LIMITS = {
  /** Monitors of one organisation and environment: the 101st is 409. */
  monitorsPerTenant: 100,
  nameLength: 100,
  descriptionLength: 1000,
  /** A filter's value: as an agent, user, tool or model name elsewhere (LIMITS.nameLength). */
  windowStepMinutes: 5,
  minWindowMinutes: 5,
  /** 7 days. */
  maxWindowMinutes: 10_080,
  maxMinSessions: 1_000_000,
  minRenotifyMinutes: 5,
  maxRenotifyMinutes: 1440,
  destinationsPerMonitor: 5,
  /** Largest threshold magnitude (cost in USD, durations in ms, counts): well inside what DynamoDB stores. */
  maxThreshold: 1e12,
  historyPage: 50,
  maxHistoryPage: 100,
  auditPage: 50,
  maxAuditPage: 100,
} as const;

/** Metrics whose figure is a percentage (thresholds 0–100). */
export const PERCENT_METRICS: ReadonlySet<MonitorMetric> = new Set([
  "failure_rate",
  "tool_failure_rate",
  "label_share",
]);

/** Metrics of sessions: they may name a user. */
export const SESSION_METRICS: ReadonlySet<MonitorMetric> = new Set([
  "failure_rate",
  "failed_sessions",
  "error_events",
  "sessions_started",
  "cost",
  "tokens",
  "duration_p50",
  "duration_p95",
  "duration_p99",
]);
