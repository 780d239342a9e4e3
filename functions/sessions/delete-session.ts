/** DELETE /api/sdk/sessions/{id}: the session, its events and its rollup contribution → 204. */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { deleteSession } from "../store/session-deletion.js";

export const handler = apiKeyOrUserRoute("DeleteSession", {}, async ({ caller, pathParameters }) => {
  await deleteSession(caller, pathParameters.id ?? "");
  return { statusCode: 204 };
});
