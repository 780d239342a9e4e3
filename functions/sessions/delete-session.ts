/**
 * DELETE /api/sdk/sessions/{id}: the session, its events and its rollup contribution → 204, recorded in the
 * organisation's deletion audit with the key or user that asked.
 */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { auditedDeletion, deleteSession } from "../store/sessions/session-deletion.js";

export const handler = apiKeyOrUserRoute("DeleteSession", {}, async ({ caller, pathParameters }) => {
  await deleteSession(caller, pathParameters.id ?? "", { receipt: auditedDeletion(caller) });
  return { statusCode: 204 };
});
