/** GET /api/alerts/monitors/{monitorId}/history: the monitor's state changes and renotifications, newest first. */
import { MONITOR_LIMITS } from "../domain/monitor.js";
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { monitorHistoryQuery } from "../schemas/monitor-schemas.js";
import { listMonitorHistory } from "../store/alerts/monitor-history-store.js";
import { getMonitor } from "../store/alerts/monitor-store.js";
import { monitorIdParameter } from "./monitor-id-parameter.js";

export const handler = userTenantRoute(
  "ListMonitorHistory",
  { query: monitorHistoryQuery },
  async ({ caller, query, pathParameters }) => {
    // The monitor first, in the caller's tenant: its history partition is keyed by its id alone.
    const monitor = await getMonitor(caller.orgId, caller.environment, monitorIdParameter(pathParameters));
    const page = await listMonitorHistory(monitor.id, {
      limit: query.limit ?? MONITOR_LIMITS.historyPage,
      cursor: query.cursor,
    });
    return jsonResponse(200, page);
  },
);
