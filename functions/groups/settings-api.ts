/**
 * The Lambda function of the `SettingsApi` group (functions/route-table.ts): the organisation's model prices and
 * score configurations, each route run by its own handler module, loaded on its first request.
 */
import { groupHandler } from "../http/function-group.js";

export const handler = groupHandler("SettingsApi", {
  "functions/prices/list-organisation-prices.ts": () => import("../prices/list-organisation-prices.js"),
  "functions/prices/get-price-table.ts": () => import("../prices/get-price-table.js"),
  "functions/prices/list-price-audit.ts": () => import("../prices/list-price-audit.js"),
  "functions/prices/put-organisation-price.ts": () => import("../prices/put-organisation-price.js"),
  "functions/prices/delete-organisation-price.ts": () => import("../prices/delete-organisation-price.js"),
  "functions/scores/list-score-configs.ts": () => import("../scores/list-score-configs.js"),
  "functions/scores/put-score-config.ts": () => import("../scores/put-score-config.js"),
  "functions/scores/delete-score-config.ts": () => import("../scores/delete-score-config.js"),
});
