/**
 * The Lambda function of the `AlertsApi` group (functions/route-table.ts): the console's alerts routes, each run by
 * its own handler module, loaded on its first request.
 */
import { groupHandler } from "../http/function-group.js";

export const handler = groupHandler("AlertsApi", {
  "functions/alerts/list-monitors.ts": () => import("../alerts/list-monitors.js"),
  "functions/alerts/create-monitor.ts": () => import("../alerts/create-monitor.js"),
  "functions/alerts/preview-monitor.ts": () => import("../alerts/preview-monitor.js"),
  "functions/alerts/get-monitor.ts": () => import("../alerts/get-monitor.js"),
  "functions/alerts/replace-monitor.ts": () => import("../alerts/replace-monitor.js"),
  "functions/alerts/delete-monitor.ts": () => import("../alerts/delete-monitor.js"),
  "functions/alerts/list-monitor-history.ts": () => import("../alerts/list-monitor-history.js"),
  "functions/alerts/test-monitor.ts": () => import("../alerts/test-monitor.js"),
  "functions/alerts/list-alert-audit.ts": () => import("../alerts/list-alert-audit.js"),
  "functions/alerts/destinations/list-destinations.ts": () => import("../alerts/destinations/list-destinations.js"),
  "functions/alerts/destinations/create-destination.ts": () => import("../alerts/destinations/create-destination.js"),
  "functions/alerts/destinations/get-destination.ts": () => import("../alerts/destinations/get-destination.js"),
  "functions/alerts/destinations/update-destination.ts": () => import("../alerts/destinations/update-destination.js"),
  "functions/alerts/destinations/delete-destination.ts": () => import("../alerts/destinations/delete-destination.js"),
  "functions/alerts/destinations/rotate-destination-secret.ts": () =>
    import("../alerts/destinations/rotate-destination-secret.js"),
  "functions/alerts/destinations/test-destination.ts": () => import("../alerts/destinations/test-destination.js"),
});
