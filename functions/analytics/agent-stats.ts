/** GET /api/sdk/agents/{agentName}/stats: totals and a per-day series from rollups, O(days). */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { jsonResponse } from "../http/responses.js";
import { statsQuery } from "../schemas/read-schemas.js";
import { readStats } from "../store/counting/rollup-store.js";
import { tenant } from "../store/table/keys.js";
import { statsPeriod } from "./stats-period.js";

export const handler = apiKeyOrUserReadRoute(
  "AgentStats",
  { query: statsQuery },
  async ({ caller, query, pathParameters }) => {
    const agentName = namePathParameter(pathParameters, "agentName");
    const { fromDay, toDay } = statsPeriod(query);
    const stats = await readStats(tenant(caller.orgId, caller.environment), "AGENT", agentName, fromDay, toDay);
    return jsonResponse(200, { agentName, from: fromDay, to: toDay, ...stats });
  },
);
