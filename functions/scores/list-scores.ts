/** GET /api/sdk/sessions/{id}/scores: a session's scores, oldest first. */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { listScoresQuery } from "../schemas/read-schemas.js";
import { queryScores } from "../store/scores/score-store.js";
import { getSession } from "../store/sessions/session-store.js";
import { cursorScope, decodeCursor, encodeCursor } from "../store/table/cursor-signing.js";
import { sessionKey } from "../store/table/keys.js";
import { scoreView } from "./score-view.js";

export const handler = apiKeyOrUserReadRoute(
  "ListScores",
  { query: listScoresQuery },
  async ({ caller, query, pathParameters }) => {
    const session = await getSession(caller, pathParameters.id ?? "");
    const scope = cursorScope(["scores", session.id]);
    const page = await queryScores(
      sessionKey(session.id).PK,
      query.limit,
      query.cursor === undefined ? undefined : await decodeCursor(query.cursor, scope),
    );
    return jsonResponse(200, {
      items: page.items.map(scoreView),
      nextCursor: page.lastKey === undefined ? null : await encodeCursor(page.lastKey, scope),
    });
  },
);
