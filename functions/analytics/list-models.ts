/**
 * GET /api/sdk/models: the organisation's model calls per model over whole UTC days, the sum of its agents'
 * rollups (the agents with the most sessions, as GET /api/sdk/agents reads them).
 */
import { assembleModels } from "../domain/rollup.js";
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { statsQuery } from "../schemas/read-schemas.js";
import { readTenantModelRows } from "../store/counting/agent-overview.js";
import { tenant } from "../store/table/keys.js";
import { statsPeriod } from "./stats-period.js";

export const handler = apiKeyOrUserReadRoute("ListModels", { query: statsQuery }, async ({ caller, query }) => {
  const { fromDay, toDay } = statsPeriod(query);
  const { rows, agentsWithoutStats } = await readTenantModelRows(
    tenant(caller.orgId, caller.environment),
    fromDay,
    toDay,
  );
  return jsonResponse(200, { from: fromDay, to: toDay, ...assembleModels(rows), agentsWithoutStats });
});
