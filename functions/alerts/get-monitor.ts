/** GET /api/alerts/monitors/{monitorId}: one monitor with its state (any member); another tenant's is 404. */
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { getMonitor, monitorView } from "../store/alerts/monitor-store.js";
import { monitorIdParameter } from "./monitor-id-parameter.js";

export const handler = userTenantRoute("GetMonitor", {}, async ({ caller, pathParameters }) => {
  const monitor = await getMonitor(caller.orgId, caller.environment, monitorIdParameter(pathParameters));
  return jsonResponse(200, monitorView(monitor));
});
