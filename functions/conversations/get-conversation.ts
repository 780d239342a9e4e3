/**
 * GET /api/sdk/conversations/{id}: one conversation with a page of its runs in order, its own first scores and, on
 * the first page, its totals, scores included (404 for an id unknown in the caller's tenant, whoever else may use it).
 */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { jsonResponse } from "../http/responses.js";
import { getConversationQuery } from "../schemas/read-schemas.js";
import { scoreView } from "../scores/score-view.js";
import { sessionView } from "../sessions/session-view.js";
import { getConversation, listConversationRuns } from "../store/conversations/conversation-reads.js";
import { conversationScoresOf } from "../store/conversations/conversation-scores.js";
import { conversationTotalsView, conversationView } from "./conversation-view.js";

export const handler = apiKeyOrUserReadRoute(
  "GetConversation",
  { query: getConversationQuery },
  async ({ caller, query, pathParameters }) => {
    const conversation = await getConversation(caller, namePathParameter(pathParameters, "id"));
    const page = await listConversationRuns(caller, conversation.id, query);
    const scored = await conversationScoresOf(caller, conversation, page.totals?.sessionIds);
    const nowMs = Date.now();
    return jsonResponse(200, {
      ...conversationView(conversation),
      totals:
        page.totals === undefined || scored.totals === undefined
          ? null
          : conversationTotalsView(page.totals.figures, page.totals.complete, scored.totals),
      runs: page.runs.map((session) => sessionView(session, nowMs)),
      nextCursor: page.nextCursor,
      scores: scored.scores.map(scoreView),
      scoresTruncated: scored.truncated,
    });
  },
);
