/** GET /api/alerts/monitors: the monitors of the caller's organisation and environment, oldest first (any member). */
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { listMonitors, monitorView } from "../store/alerts/monitor-store.js";

export const handler = userTenantRoute("ListMonitors", {}, async ({ caller }) => {
  const monitors = await listMonitors(caller.orgId, caller.environment);
  return jsonResponse(200, { monitors: monitors.map(monitorView) });
});
