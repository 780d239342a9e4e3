/** GET /api/sdk/score-configs: the organisation's score configurations, by name (at most 100). */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { listScoreConfigs } from "../store/scores/score-config-store.js";

export const handler = apiKeyOrUserReadRoute("ListScoreConfigs", {}, async ({ caller }) =>
  jsonResponse(200, { items: await listScoreConfigs(caller.orgId) }),
);
