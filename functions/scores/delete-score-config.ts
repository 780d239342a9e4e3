/** DELETE /api/sdk/score-configs/{name}: an admin removes a score name's configuration (its scores are free again). */
import { userRoute } from "../http/user-route.js";
import { forgetScoreConfigs } from "../store/scores/score-config-cache.js";
import { deleteScoreConfig } from "../store/scores/score-config-store.js";
import { scoreNameParameter } from "./score-name-parameter.js";

export const handler = userRoute("DeleteScoreConfig", {}, async ({ caller, pathParameters }) => {
  await deleteScoreConfig(caller.orgId, scoreNameParameter(pathParameters));
  forgetScoreConfigs(caller.orgId);
  return { statusCode: 204 };
});
