/**
 * What a monitor tells its destinations (issue 34's shared contract): one notification per state change,
 * renotify or test, delivered to each destination at least once with the same `notificationId` on every retry,
 * so receivers drop repeats by it. The webhook body is this object plus `links` (alerts/delivery/).
 */
import type { Environment } from "./api-key.js";

export const ALERT_NOTIFICATION_TYPES = ["monitor.state_changed", "monitor.renotify", "monitor.test"] as const;
export type AlertNotificationType = (typeof ALERT_NOTIFICATION_TYPES)[number];

export const MONITOR_STATES = ["ok", "warning", "alert"] as const;
export type MonitorStatus = (typeof MONITOR_STATES)[number];

/** The monitor as the notification describes it (its definition when the notification was made). */
export interface AlertNotificationMonitor {
  id: string;
  name: string;
  metric: string;
  filters: Record<string, string>;
  windowMinutes: number;
  comparison: "above" | "below";
  warningThreshold: number | null;
  alertThreshold: number;
}

export interface AlertNotification {
  /** `ntf_…`, the same on every retry: receivers dedupe by it. */
  notificationId: string;
  type: AlertNotificationType;
  orgId: string;
  environment: Environment;
  monitor: AlertNotificationMonitor;
  state: MonitorStatus;
  previousState: MonitorStatus;
  figure: number | null;
  samples: number;
  threshold: number | null;
  windowStart: string;
  windowEnd: string;
  occurredAt: string;
}
