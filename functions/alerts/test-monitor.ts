/**
 * POST /api/alerts/monitors/{monitorId}/test: an admin sends a test notification (`monitor.test`, the monitor's
 * current state) to its destinations; 202 with the notification's id and each destination's hand-over (queued, or
 * skipped as missing or disabled).
 */
import { newId } from "../domain/ids.js";
import { monitorNotification } from "../domain/monitor-notification.js";
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { getMonitor } from "../store/alerts/monitor-store.js";
import { dispatchAlertNotificationReporting } from "./delivery/notify.js";
import { monitorIdParameter } from "./monitor-id-parameter.js";

export const handler = userTenantRoute("TestMonitor", {}, async ({ caller, pathParameters }) => {
  const monitor = await getMonitor(caller.orgId, caller.environment, monitorIdParameter(pathParameters));
  const now = new Date().toISOString();
  const notification = monitorNotification(monitor, {
    notificationId: newId("alertNotification"),
    type: "monitor.test",
    orgId: caller.orgId,
    environment: caller.environment,
    state: monitor.state.status,
    previousState: monitor.state.status,
    figure: monitor.state.figure,
    samples: monitor.state.samples,
    threshold: monitor.alertThreshold,
    windowStart: monitor.state.windowStart ?? now,
    windowEnd: monitor.state.windowEnd ?? now,
    occurredAt: now,
  });
  const deliveries = await dispatchAlertNotificationReporting(notification, monitor.destinationIds);
  return jsonResponse(202, { notificationId: notification.notificationId, deliveries });
});
