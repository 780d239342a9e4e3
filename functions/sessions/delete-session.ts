/** DELETE /api/sdk/sessions/{id}: the session, its events and its rollup contribution → 204. */
import { apiKeyRoute } from "../http/api-key-route.js";
import { deleteSession } from "../store/session-deletion.js";

export const handler = apiKeyRoute("DeleteSession", {}, async ({ caller, pathParameters }) => {
  await deleteSession(caller, pathParameters.id ?? "");
  return { statusCode: 204 };
});
