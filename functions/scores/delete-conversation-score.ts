/** DELETE /api/sdk/conversations/{id}/scores/{scoreId}: one score of the conversation → 204 (its count withdrawn). */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { deleteConversationScore } from "../store/scores/score-store.js";

export const handler = apiKeyOrUserRoute("DeleteConversationScore", {}, async ({ caller, pathParameters }) => {
  await deleteConversationScore(caller, namePathParameter(pathParameters, "id"), pathParameters.scoreId ?? "");
  return { statusCode: 204 };
});
