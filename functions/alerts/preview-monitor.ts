/**
 * POST /api/alerts/monitors/preview: a definition's figure for windows ending at each hour of the last 72 hours
 * (any member; nothing is stored). The destinations it names are not looked up: a preview sends nothing.
 */
import { jsonResponse } from "../http/responses.js";
import { userTenantRoute } from "../http/user-route.js";
import { monitorDefinitionBody } from "../schemas/monitor-schemas.js";
import { previewMonitor } from "./monitor-preview.js";

export const handler = userTenantRoute("PreviewMonitor", { body: monitorDefinitionBody }, async ({ caller, body }) =>
  jsonResponse(200, await previewMonitor(caller.orgId, caller.environment, body, new Date())),
);
