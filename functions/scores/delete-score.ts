/** DELETE /api/sdk/sessions/{id}/scores/{scoreId}: one score of the session → 204. */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { deleteScore } from "../store/scores/score-store.js";

export const handler = apiKeyOrUserRoute("DeleteScore", {}, async ({ caller, pathParameters }) => {
  await deleteScore(caller, pathParameters.id ?? "", pathParameters.scoreId ?? "");
  return { statusCode: 204 };
});
