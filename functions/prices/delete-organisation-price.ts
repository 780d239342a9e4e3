/** DELETE /api/prices/{model}[?effectiveFrom=YYYY-MM-DD]: an admin deletes one dated price or all of a model's (audited). */
import { userRoute } from "../http/user-route.js";
import { forgetOrganisationPrices } from "../pricing/organisation-prices.js";
import { deletePriceQuery } from "../schemas/price-schemas.js";
import { deleteOrganisationPrices } from "../store/prices/organisation-price-store.js";
import { modelPathParameter } from "./model-path-parameter.js";

export const handler = userRoute(
  "DeleteOrganisationPrice",
  { query: deletePriceQuery },
  async ({ caller, query, pathParameters }) => {
    const model = modelPathParameter(pathParameters);
    await deleteOrganisationPrices(caller.orgId, model, query.effectiveFrom, {
      name: caller.username,
      id: caller.userId,
    });
    forgetOrganisationPrices(caller.orgId);
    return { statusCode: 204 };
  },
);
