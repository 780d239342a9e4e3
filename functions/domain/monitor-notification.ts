/**
 * The notification a monitor's state change, renotification or test makes (domain/alert-notification.ts). Pure.
 * An evaluation's notification id is derived from the monitor and the evaluation minute, so the history entry and
 * every retry of its delivery name the same id.
 */
import { createHash } from "node:crypto";
import type { AlertNotification, AlertNotificationType, MonitorStatus } from "./alert-notification.js";
import type { Environment } from "./api-key.js";
import { derivedUlid, ID_PREFIXES } from "./ids.js";
import type { MonitorDefinition } from "./monitor.js";

/** The notification id of an evaluation's change (or renotification) of a monitor at a minute. */
export function evaluationNotificationId(monitorId: string, at: string): string {
  const seed = createHash("sha256").update(`${monitorId}\n${at}`).digest();
  return `${ID_PREFIXES.alertNotification}_${derivedUlid(Date.parse(at), seed)}`;
}

export interface NotificationFacts {
  readonly notificationId: string;
  readonly type: AlertNotificationType;
  readonly orgId: string;
  readonly environment: Environment;
  readonly state: MonitorStatus;
  readonly previousState: MonitorStatus;
  readonly figure: number | null;
  readonly samples: number;
  readonly threshold: number | null;
  readonly windowStart: string;
  readonly windowEnd: string;
  readonly occurredAt: string;
}

export function monitorNotification(
  monitor: MonitorDefinition & { readonly id: string },
  facts: NotificationFacts,
): AlertNotification {
  const filters: Record<string, string> = {};
  for (const [key, value] of Object.entries(monitor.filters)) if (value !== undefined) filters[key] = value;
  return {
    ...facts,
    monitor: {
      id: monitor.id,
      name: monitor.name,
      metric: monitor.metric,
      filters,
      windowMinutes: monitor.windowMinutes,
      comparison: monitor.comparison,
      warningThreshold: monitor.warningThreshold ?? null,
      alertThreshold: monitor.alertThreshold,
    },
  };
}
