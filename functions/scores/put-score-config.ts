/**
 * PUT /api/sdk/score-configs/{name}: an admin says what a score name's values must be (its kind, and a range or
 * labels); 200 with the configuration, new or replaced (as a price's PUT). Scores already stored are not checked
 * again.
 */

import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { putScoreConfigBody } from "../schemas/score-config-schemas.js";
import { forgetScoreConfigs } from "../store/scores/score-config-cache.js";
import { putScoreConfig } from "../store/scores/score-config-store.js";
import { scoreNameParameter } from "./score-name-parameter.js";

export const handler = userRoute(
  "PutScoreConfig",
  { body: putScoreConfigBody },
  async ({ caller, body, pathParameters }) => {
    const config = {
      name: scoreNameParameter(pathParameters),
      ...body,
      updatedAt: new Date().toISOString(),
      updatedBy: caller.username,
    };
    await putScoreConfig(caller.orgId, config);
    forgetScoreConfigs(caller.orgId);
    return jsonResponse(200, config);
  },
);
