/** GET /api/alerts/audit: who changed which monitor or destination of the organisation, when, from what to what (admins). */
import { MONITOR_LIMITS } from "../domain/monitor.js";
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { alertAuditQuery } from "../schemas/monitor-schemas.js";
import { alertAuditPage } from "../store/alerts/alert-audit-store.js";

export const handler = userRoute("ListAlertAudit", { query: alertAuditQuery }, async ({ caller, query }) => {
  const page = await alertAuditPage(caller.orgId, {
    limit: query.limit ?? MONITOR_LIMITS.auditPage,
    cursor: query.cursor,
  });
  return jsonResponse(200, page);
});
