/** GET /api/sdk/users/{userId}/stats: one external user's totals and per-day series from rollups. */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { jsonResponse } from "../http/responses.js";
import { statsQuery } from "../schemas/read-schemas.js";
import { readStats } from "../store/counting/rollup-store.js";
import { tenant } from "../store/table/keys.js";
import { statsPeriod } from "./stats-period.js";

export const handler = apiKeyOrUserReadRoute(
  "UserStats",
  { query: statsQuery },
  async ({ caller, query, pathParameters }) => {
    const userId = namePathParameter(pathParameters, "userId");
    const { fromDay, toDay } = statsPeriod(query);
    const stats = await readStats(tenant(caller.orgId, caller.environment), "USER", userId, fromDay, toDay);
    return jsonResponse(200, { userId, from: fromDay, to: toDay, ...stats });
  },
);
