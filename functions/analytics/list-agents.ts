/**
 * GET /api/sdk/agents: the tenant's agent names with their session counts; with a period (`from` and/or `to`),
 * each agent's totals over it and last active day, and the tenant's totals, per-day series and top lists.
 */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { listAgentsQuery } from "../schemas/read-schemas.js";
import { readAgentsOverview } from "../store/counting/agent-overview.js";
import { listAgents } from "../store/counting/rollup-store.js";
import { tenant } from "../store/table/keys.js";
import { statsPeriod } from "./stats-period.js";

export const handler = apiKeyOrUserReadRoute("ListAgents", { query: listAgentsQuery }, async ({ caller, query }) => {
  const tenantPrefix = tenant(caller.orgId, caller.environment);
  if (query.from === undefined && query.to === undefined) {
    return jsonResponse(200, { items: await listAgents(tenantPrefix) });
  }
  const { fromDay, toDay } = statsPeriod(query);
  const { agents, ...overview } = await readAgentsOverview(tenantPrefix, fromDay, toDay);
  return jsonResponse(200, { items: agents, from: fromDay, to: toDay, ...overview });
});
