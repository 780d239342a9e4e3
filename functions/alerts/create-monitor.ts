/** POST /api/alerts/monitors: an admin creates a monitor (audited); 201 with it, 409 past the tenant's 100. */
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { monitorDefinitionBody } from "../schemas/monitor-schemas.js";
import { requireOrganisationDestinations } from "../store/alerts/monitor-destinations.js";
import { createMonitor, monitorView } from "../store/alerts/monitor-store.js";

export const handler = userTenantRoute("CreateMonitor", { body: monitorDefinitionBody }, async ({ caller, body }) => {
  await requireOrganisationDestinations(caller.orgId, body.destinationIds);
  const monitor = await createMonitor(caller.orgId, caller.environment, body, {
    name: caller.username,
    id: caller.userId,
  });
  return jsonResponse(201, monitorView(monitor));
});
