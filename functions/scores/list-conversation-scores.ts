/** GET /api/sdk/conversations/{id}/scores: a conversation's own scores, oldest first (404 unknown in the tenant). */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { jsonResponse } from "../http/responses.js";
import { listScoresQuery } from "../schemas/read-schemas.js";
import { getConversation } from "../store/conversations/conversation-reads.js";
import { queryScores } from "../store/scores/score-store.js";
import { cursorScope, decodeCursor, encodeCursor } from "../store/table/cursor-signing.js";
import { conversationKey } from "../store/table/keys.js";
import { scoreView } from "./score-view.js";

export const handler = apiKeyOrUserReadRoute(
  "ListConversationScores",
  { query: listScoresQuery },
  async ({ caller, query, pathParameters }) => {
    const conversation = await getConversation(caller, namePathParameter(pathParameters, "id"));
    const scope = cursorScope(["conversation-scores", caller.orgId, caller.environment, conversation.id]);
    const page = await queryScores(
      conversationKey(caller.orgId, caller.environment, conversation.id).PK,
      query.limit,
      query.cursor === undefined ? undefined : await decodeCursor(query.cursor, scope),
    );
    return jsonResponse(200, {
      items: page.items.map(scoreView),
      nextCursor: page.lastKey === undefined ? null : await encodeCursor(page.lastKey, scope),
    });
  },
);
