/** GET /api/sdk/sessions: the tenant's sessions, newest first, filtered by a key condition. */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { jsonResponse } from "../http/responses.js";
import { listSessionsQuery } from "../schemas/read-schemas.js";
import { listSessions } from "../store/sessions/session-listing.js";
import { sessionView } from "./session-view.js";

export const handler = apiKeyOrUserRoute("ListSessions", { query: listSessionsQuery }, async ({ caller, query }) => {
  const { limit, cursor, ...filters } = query;
  const page = await listSessions(caller, filters, { limit, cursor });
  const nowMs = Date.now();
  return jsonResponse(200, {
    items: page.items.map((session) => sessionView(session, nowMs)),
    nextCursor: page.nextCursor,
  });
});
