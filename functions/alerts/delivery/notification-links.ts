/**
 * The console links a notification carries (`links` of the webhook body, the Slack message's buttons, the
 * EventBridge detail): the monitor on the Alerts page, and the sessions of the monitor's filters over its window.
 * The console's base URL is `ATS_CONSOLE_URL` (the stack sets it to the console's address; `npm start` to the local
 * server); without it the links are paths relative to the console.
 */
import type { AlertNotification } from "../../domain/alert-notification.js";

export interface NotificationLinks {
  monitor: string;
  sessions: string;
}

/** Metrics counted from failed sessions: their sessions link shows the failed ones. */
const FAILURE_METRICS: ReadonlySet<string> = new Set(["failure_rate", "failed_sessions"]);

export function notificationLinks(
  notification: AlertNotification,
  baseUrl: string = process.env.ATS_CONSOLE_URL ?? "",
): NotificationLinks {
  const base = baseUrl.replace(/\/+$/, "");
  const monitor = new URLSearchParams({ monitor: notification.monitor.id });
  const { filters, metric } = notification.monitor;
  const sessions = new URLSearchParams();
  if (filters.agent !== undefined) sessions.set("agentName", filters.agent);
  if (filters.user !== undefined) sessions.set("userId", filters.user);
  if (filters.tool !== undefined) sessions.set("toolName", filters.tool);
  if (filters.score !== undefined) sessions.set("scoreName", filters.score);
  if (filters.label !== undefined) sessions.set("scoreLabel", filters.label);
  if (FAILURE_METRICS.has(metric)) sessions.set("status", "failed");
  sessions.set("from", notification.windowStart.slice(0, 10));
  sessions.set("to", notification.windowEnd.slice(0, 10));
  if (notification.environment === "test") {
    monitor.set("env", "test");
    sessions.set("env", "test");
  }
  return { monitor: `${base}/alerts?${monitor}`, sessions: `${base}/sessions?${sessions}` };
}
