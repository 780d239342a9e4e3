/** GET /api/sdk/agents: the tenant's agent names with their session counts. */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { jsonResponse } from "../http/responses.js";
import { tenant } from "../store/keys.js";
import { listAgents } from "../store/rollup-store.js";

export const handler = apiKeyOrUserRoute("ListAgents", {}, async ({ caller }) => {
  return jsonResponse(200, { items: await listAgents(tenant(caller.orgId, caller.environment)) });
});
