/** GET /api/keys/{id}/audit: who did what to a key, and when (any member). */

import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listApiKeyAudit } from "../store/keys/api-key-store.js";

export const handler = userRoute("ListApiKeyAudit", {}, async ({ caller, pathParameters }) => {
  const records = await listApiKeyAudit(caller.orgId, pathParameters.id ?? "");
  return jsonResponse(200, {
    items: records.map((record) => ({
      id: record.id,
      keyId: record.keyId,
      action: record.action,
      actor: record.actor,
      actorId: record.actorId ?? null,
      at: record.at,
      details: record.details ?? {},
    })),
  });
});
