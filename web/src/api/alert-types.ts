/**
 * The alerts API's shapes (issue 34), written from the shared contract (routes under /api/alerts): monitors, their
 * history and preview, destinations. Hand-written, not derived like ./types.ts: the monitors' and destinations'
 * response schemas are another part of the issue (switch to `z.output<…>` once they are in
 * functions/schemas/response-schemas.ts).
 */
import type { Environment } from "./types";

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

export type MonitorStatus = "ok" | "warning" | "alert";
export type NoDataRule = "ok" | "keep" | "alert";
export type Comparison = "above" | "below";

export interface MonitorFilters {
  agent?: string;
  user?: string;
  model?: string;
  tool?: string;
  score?: string;
  label?: string;
}

/** The body of POST/PUT /api/alerts/monitors[/{id}] and of POST /api/alerts/monitors/preview. */
export interface MonitorDefinition {
  name: string;
  description?: string;
  enabled: boolean;
  metric: MonitorMetric;
  filters: MonitorFilters;
  windowMinutes: number;
  comparison: Comparison;
  warningThreshold?: number;
  alertThreshold: number;
  minSessions: number;
  noData: NoDataRule;
  renotifyMinutes: number;
  notifyOnRecovery: boolean;
  destinationIds: string[];
}

export interface MonitorState {
  status: MonitorStatus;
  since: string | null;
  figure: number | null;
  samples: number;
  evaluatedAt: string | null;
  windowStart: string | null;
  windowEnd: string | null;
}

export interface Monitor extends MonitorDefinition {
  id: string;
  environment: Environment;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  state: MonitorState;
}

export interface MonitorHistoryEntry {
  id: string;
  at: string;
  from: MonitorStatus;
  to: MonitorStatus;
  kind: "change" | "renotify";
  figure: number | null;
  samples: number;
  threshold: number | null;
  windowStart: string;
  windowEnd: string;
  notificationId: string;
}

/** One window of POST /api/alerts/monitors/preview: the figure of the window ending at an hour of the last 72. */
export interface PreviewPoint {
  start: string;
  end: string;
  figure: number | null;
  samples: number;
}

export interface MonitorPreview {
  points: PreviewPoint[];
  note?: string;
}

export interface MonitorTestResult {
  notificationId: string;
  deliveries: { destinationId: string; status: string }[];
}

export const DESTINATION_KINDS = ["webhook", "slack", "eventbridge"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export interface Destination {
  id: string;
  name: string;
  kind: DestinationKind;
  url: string | null;
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  lastDeliveryAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** 201 of POST /api/alerts/destinations: a webhook's signing secret comes with it, once. */
export type CreatedDestination = Destination & { secret?: string };

export interface DestinationTestResult {
  delivered: boolean;
  status?: number;
  error?: string;
}
