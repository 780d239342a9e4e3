/** GET /api/prices: the organisation's own model prices, by model then newest first (any member). */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listOrganisationPrices } from "../store/prices/organisation-price-store.js";
import { ORGANISATION_PRICE_LIMITS } from "../store/prices/price-limits.js";
import { priceView } from "./price-view.js";

export const handler = userRoute("ListOrganisationPrices", {}, async ({ caller }) => {
  const prices = await listOrganisationPrices(caller.orgId);
  return jsonResponse(200, {
    items: prices.map(priceView),
    limits: {
      pricesPerOrganisation: ORGANISATION_PRICE_LIMITS.pricesPerOrganisation,
      pricesPerModel: ORGANISATION_PRICE_LIMITS.pricesPerModel,
    },
  });
});
