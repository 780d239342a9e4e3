/** DELETE /api/alerts/monitors/{monitorId}: an admin deletes a monitor (audited); 204, 404 when there is none. */
import { userTenantRoute } from "../http/user-route.js";
import { deleteMonitor } from "../store/alerts/monitor-store.js";
import { monitorIdParameter } from "./monitor-id-parameter.js";

export const handler = userTenantRoute("DeleteMonitor", {}, async ({ caller, pathParameters }) => {
  await deleteMonitor(caller.orgId, caller.environment, monitorIdParameter(pathParameters), {
    name: caller.username,
    id: caller.userId,
  });
  return { statusCode: 204 };
});
