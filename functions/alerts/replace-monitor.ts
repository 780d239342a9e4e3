/** PUT /api/alerts/monitors/{monitorId}: an admin replaces a monitor's whole definition (audited); its state stays. */
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { monitorDefinitionBody } from "../schemas/monitor-schemas.js";
import { requireOrganisationDestinations } from "../store/alerts/monitor-destinations.js";
import { monitorView, replaceMonitor } from "../store/alerts/monitor-store.js";
import { monitorIdParameter } from "./monitor-id-parameter.js";

export const handler = userTenantRoute(
  "ReplaceMonitor",
  { body: monitorDefinitionBody },
  async ({ caller, body, pathParameters }) => {
    const monitorId = monitorIdParameter(pathParameters);
    await requireOrganisationDestinations(caller.orgId, body.destinationIds);
    const monitor = await replaceMonitor(caller.orgId, caller.environment, monitorId, body, {
      name: caller.username,
      id: caller.userId,
    });
    return jsonResponse(200, monitorView(monitor));
  },
);
