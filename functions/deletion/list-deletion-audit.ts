/**
 * GET /api/audit/deletions: who deleted which session, or asked to erase which user, and when — the
 * organisation's latest 100, newest first (admins and owners).
 */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listDeletionAudit } from "../store/deletion/deletion-audit-store.js";

/** How many of the latest deletions the route returns. */
export const DELETION_AUDIT_PAGE = 100;

export const handler = userRoute("ListDeletionAudit", {}, async ({ caller }) => {
  const records = await listDeletionAudit(caller.orgId, DELETION_AUDIT_PAGE);
  return jsonResponse(200, {
    items: records.map((record) => ({
      id: record.id,
      action: record.action,
      environment: record.environment,
      target: record.target,
      actor: record.actor,
      at: record.at,
      jobId: record.jobId ?? null,
      deletedEvents: record.deletedEvents ?? null,
    })),
  });
});
