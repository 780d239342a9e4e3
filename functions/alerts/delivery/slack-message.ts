/**
 * The Slack incoming-webhook message of a notification: a one-line `text` (what notifications and screen readers
 * show) and Block Kit blocks — the monitor and its state, the figure against the threshold, the window, the links.
 * Pure. Slack's mrkdwn needs `&`, `<` and `>` escaped in text that comes from users (monitor names, filters).
 */
import type { AlertNotification, MonitorStatus } from "../../domain/alert-notification.js";
import type { NotificationLinks } from "./notification-links.js";

const STATE_WORD: Readonly<Record<MonitorStatus, string>> = { ok: "OK", warning: "WARNING", alert: "ALERT" };
const STATE_ICON: Readonly<Record<MonitorStatus, string>> = {
  ok: ":large_green_circle:",
  warning: ":large_yellow_circle:",
  alert: ":red_circle:",
};

function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** A figure as people read it: percentages for rates, dollars for cost, ms for durations, else the number. */
export function formatFigure(metric: string, value: number | null): string {
  if (value === null) return "no data";
  const rounded = Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, "");
  if (metric.endsWith("_rate") || metric === "label_share") return `${rounded}%`;
  if (metric === "cost") return `$${rounded}`;
  if (metric.startsWith("duration_")) return `${rounded} ms`;
  return rounded;
}

/** "15 minutes", "2 hours", "7 days" (whole units when they divide). */
export function formatWindow(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} day${minutes === 1440 ? "" : "s"}`;
  if (minutes % 60 === 0) return `${minutes / 60} hour${minutes === 60 ? "" : "s"}`;
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** The headline: "[ALERT] Checkout failures: failure_rate 12.5% above 5% over 15 minutes". */
export function slackText(notification: AlertNotification): string {
  const { monitor, state, figure, threshold } = notification;
  const prefix = notification.type === "monitor.test" ? "[TEST] " : "";
  const against = threshold === null ? "" : ` ${monitor.comparison} ${formatFigure(monitor.metric, threshold)}`;
  const recovered = state === "ok" && notification.previousState !== "ok" ? " (recovered)" : "";
  return `${prefix}[${STATE_WORD[state]}] ${monitor.name}${recovered}: ${monitor.metric} ${formatFigure(monitor.metric, figure)}${state === "ok" ? "" : against} over ${formatWindow(monitor.windowMinutes)}`;
}

export function slackMessage(notification: AlertNotification, links: NotificationLinks) {
  const { monitor } = notification;
  const filters = Object.entries(monitor.filters)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
  const fields = [
    `*State*\n${STATE_WORD[notification.previousState]} → ${STATE_WORD[notification.state]}`,
    `*Figure*\n${formatFigure(monitor.metric, notification.figure)} (${notification.samples} samples)`,
    `*Threshold*\n${monitor.comparison} ${formatFigure(monitor.metric, monitor.alertThreshold)}${monitor.warningThreshold === null ? "" : ` (warning ${formatFigure(monitor.metric, monitor.warningThreshold)})`}`,
    `*Window*\n${formatWindow(monitor.windowMinutes)}: ${notification.windowStart} – ${notification.windowEnd}`,
  ];
  return {
    text: escapeMrkdwn(slackText(notification)),
    blocks: [
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: `${STATE_ICON[notification.state]} *${escapeMrkdwn(slackText(notification))}*${filters === "" ? "" : `\n${escapeMrkdwn(filters)} · ${notification.environment}`}`,
        },
      },
      { type: "section", fields: fields.map((text) => ({ type: "mrkdwn", text: escapeMrkdwn(text) })) },
      {
        type: "actions",
        elements: [
          { type: "button", text: { type: "plain_text", text: "Open the monitor" }, url: links.monitor },
          { type: "button", text: { type: "plain_text", text: "See the sessions" }, url: links.sessions },
        ],
      },
    ],
  };
}
