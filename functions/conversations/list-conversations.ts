/** GET /api/sdk/conversations: the tenant's conversations, newest first, filtered by a key condition. */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { listConversationsQuery } from "../schemas/read-schemas.js";
import { listConversations } from "../store/conversations/conversation-reads.js";
import { conversationView } from "./conversation-view.js";

export const handler = apiKeyOrUserReadRoute(
  "ListConversations",
  { query: listConversationsQuery },
  async ({ caller, query }) => {
    const { limit, cursor, ...filters } = query;
    const page = await listConversations(caller, filters, { limit, cursor });
    return jsonResponse(200, { items: page.items.map(conversationView), nextCursor: page.nextCursor });
  },
);
