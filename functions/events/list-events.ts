/** GET /api/sdk/sessions/{id}/events: a session's events, oldest first. */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { listEventsQuery } from "../schemas/read-schemas.js";
import { queryEvents } from "../store/events/event-store.js";
import { getSession } from "../store/sessions/session-store.js";
import { cursorScope, decodeCursor, encodeCursor } from "../store/table/cursor-signing.js";
import { eventView } from "./event-view.js";

export const handler = apiKeyOrUserReadRoute(
  "ListEvents",
  { query: listEventsQuery },
  async ({ caller, query, pathParameters }) => {
    const session = await getSession(caller, pathParameters.id ?? "");
    const { limit, cursor, fields, ...filters } = query;
    const scope = cursorScope(["events", session.id, filters]);
    const page = await queryEvents(
      session.id,
      { ...filters, summary: fields === "summary" },
      limit,
      cursor === undefined ? undefined : await decodeCursor(cursor, scope),
    );
    return jsonResponse(200, {
      items: page.items.map(eventView),
      nextCursor: page.lastKey === undefined ? null : await encodeCursor(page.lastKey, scope),
    });
  },
);
