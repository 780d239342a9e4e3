/** GET /api/sdk/sessions: the tenant's sessions, newest first, filtered by a key condition. */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { listSessionsQuery } from "../schemas/read-schemas.js";
import { listSessions } from "../store/sessions/session-listing.js";
import { sessionView } from "./session-view.js";

export const handler = apiKeyOrUserReadRoute(
  "ListSessions",
  { query: listSessionsQuery },
  async ({ caller, query }) => {
    const { limit, cursor, scoreName, scoreMin, scoreMax, scoreLabel, scoreValue, ...filters } = query;
    const score =
      scoreName === undefined
        ? undefined
        : {
            name: scoreName,
            min: scoreMin,
            max: scoreMax,
            label: scoreLabel,
            value: scoreValue === undefined ? undefined : scoreValue === "true",
          };
    const page = await listSessions(caller, { ...filters, score }, { limit, cursor });
    const nowMs = Date.now();
    return jsonResponse(200, {
      items: page.items.map((session) => sessionView(session, nowMs)),
      nextCursor: page.nextCursor,
    });
  },
);
