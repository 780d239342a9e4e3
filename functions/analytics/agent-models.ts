/** GET /api/sdk/agents/{agentName}/models: one agent's model calls per model over whole UTC days, from rollups. */
import { assembleModels } from "../domain/rollup.js";
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { jsonResponse } from "../http/responses.js";
import { statsQuery } from "../schemas/read-schemas.js";
import { readModelRows } from "../store/counting/rollup-store.js";
import { tenant } from "../store/table/keys.js";
import { statsPeriod } from "./stats-period.js";

export const handler = apiKeyOrUserReadRoute(
  "AgentModels",
  { query: statsQuery },
  async ({ caller, query, pathParameters }) => {
    const agentName = namePathParameter(pathParameters, "agentName");
    const { fromDay, toDay } = statsPeriod(query);
    const rows = await readModelRows(tenant(caller.orgId, caller.environment), agentName, fromDay, toDay);
    return jsonResponse(200, { agentName, from: fromDay, to: toDay, ...assembleModels(rows) });
  },
);
