/**
 * GET /api/prices/table: the price table shipped in the bundle (pricing/model-prices.json), whole (some 250 rows,
 * about 30 KB): the console searches it in the browser. Any member; no table read.
 */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { modelPriceFile, priceRows } from "../pricing/price-table.js";

export const handler = userRoute("GetPriceTable", {}, async () =>
  jsonResponse(200, { sources: modelPriceFile().sources, items: priceRows(modelPriceFile()) }),
);
