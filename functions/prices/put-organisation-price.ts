/** PUT /api/prices/{model}: an admin sets the organisation's price of a model from a day on (audited); 200 with the price, new or changed. */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { forgetOrganisationPrices } from "../pricing/organisation-prices.js";
import { putPriceBody } from "../schemas/price-schemas.js";
import { setOrganisationPrice } from "../store/prices/organisation-price-store.js";
import { modelPathParameter } from "./model-path-parameter.js";
import { priceView } from "./price-view.js";

export const handler = userRoute(
  "PutOrganisationPrice",
  { body: putPriceBody },
  async ({ caller, body, pathParameters }) => {
    const model = modelPathParameter(pathParameters);
    const { price } = await setOrganisationPrice(
      caller.orgId,
      { model, ...body },
      { name: caller.username, id: caller.userId },
    );
    forgetOrganisationPrices(caller.orgId);
    return jsonResponse(200, priceView(price));
  },
);
