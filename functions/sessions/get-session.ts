/** GET /api/sdk/sessions/{id}: one session with every stored field and its counters. */
import { apiKeyRoute } from "../http/api-key-route.js";
import { jsonResponse } from "../http/responses.js";
import { getSession } from "../store/session-store.js";
import { sessionView } from "./session-view.js";

export const handler = apiKeyRoute("GetSession", {}, async ({ caller, pathParameters }) => {
  const session = await getSession(caller, pathParameters.id ?? "");
  return jsonResponse(200, sessionView(session));
});
