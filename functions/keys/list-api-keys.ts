/** GET /api/keys: the organisation's keys, without secrets (any member). */

import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listApiKeys } from "../store/keys/api-key-store.js";
import { apiKeyView } from "./api-key-view.js";

export const handler = userRoute("ListApiKeys", {}, async ({ caller }) => {
  const records = await listApiKeys(caller.orgId);
  const nowMs = Date.now();
  return jsonResponse(200, { items: records.map((record) => apiKeyView(record, nowMs)) });
});
