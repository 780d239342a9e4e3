/** GET /api/sdk/sessions/{id}: one session with every stored field and its counters. */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { jsonResponse } from "../http/responses.js";
import { getSession } from "../store/sessions/session-store.js";
import { sessionView } from "./session-view.js";

export const handler = apiKeyOrUserRoute("GetSession", {}, async ({ caller, pathParameters }) => {
  const session = await getSession(caller, pathParameters.id ?? "");
  return jsonResponse(200, sessionView(session));
});
