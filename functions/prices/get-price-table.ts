/**
 * GET /api/prices/table: the price table shipped in the bundle (pricing/model-prices.json), whole (some 250 rows,
 * about 30 KB): the console searches it in the browser. Any member; no table read.
 */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { MODEL_PRICE_FILE, priceRows } from "../pricing/price-table.js";

export const handler = userRoute("GetPriceTable", {}, async () =>
  jsonResponse(200, { sources: MODEL_PRICE_FILE.sources, items: priceRows(MODEL_PRICE_FILE) }),
);
