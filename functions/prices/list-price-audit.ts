/** GET /api/prices/audit: who changed which of the organisation's prices, when, from what to what (admins). */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listPriceAudit } from "../store/prices/organisation-price-store.js";
import { priceAuditView } from "./price-view.js";

export const handler = userRoute("ListPriceAudit", {}, async ({ caller }) => {
  const records = await listPriceAudit(caller.orgId);
  return jsonResponse(200, { items: records.map(priceAuditView) });
});
