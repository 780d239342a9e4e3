/**
 * The alerts API's shapes (issue 34), written from the shared contract (routes under /api/alerts): monitors, their
 * history and preview, destinations. Written out (the form builds definitions from them), and checked against the
 * API's response schemas at the end of this file.
 */
import type * as z from "zod";
import type {
  createdAlertDestinationResponse,
  destinationTestResponse,
} from "../../../functions/schemas/alert-destination-responses";
import type {
  monitorHistoryResponse,
  monitorPreviewResponse,
  monitorResponse,
  monitorTestResponse,
} from "../../../functions/schemas/monitor-response-schemas";
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
  agent?: string | undefined;
  user?: string | undefined;
  model?: string | undefined;
  tool?: string | undefined;
  score?: string | undefined;
  label?: string | undefined;
}

/** The body of POST/PUT /api/alerts/monitors[/{id}] and of POST /api/alerts/monitors/preview. */
export interface MonitorDefinition {
  name: string;
  description?: string | undefined;
  enabled: boolean;
  metric: MonitorMetric;
  filters: MonitorFilters;
  windowMinutes: number;
  comparison: Comparison;
  warningThreshold?: number | undefined;
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
  note?: string | undefined;
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
export type CreatedDestination = Destination & { secret?: string | undefined };

export interface DestinationTestResult {
  delivered: boolean;
  status?: number | undefined;
  error?: string | undefined;
}

/**
 * The API's response schemas must fit the types above (a field renamed or retyped there fails the console's type
 * check here). Type-only: nothing of the service is bundled.
 */
type Fits<Actual extends Expected, Expected> = [Actual, Expected];
export type ResponseSchemasFit = [
  Fits<z.output<typeof monitorResponse>, Monitor>,
  Fits<z.output<typeof monitorHistoryResponse>["history"][number], MonitorHistoryEntry>,
  Fits<z.output<typeof monitorPreviewResponse>, MonitorPreview>,
  Fits<z.output<typeof monitorTestResponse>, MonitorTestResult>,
  Fits<z.output<typeof createdAlertDestinationResponse>, CreatedDestination>,
  Fits<z.output<typeof destinationTestResponse>, DestinationTestResult>,
];
