/** POST /api/sdk/sessions: start a session for one agent run. */

import { apiKeyRoute } from "../http/api-key-route.js";
import { jsonResponse } from "../http/responses.js";
import { createSessionBody } from "../schemas/session-schemas.js";
import { createSession } from "../store/sessions/session-store.js";

export const handler = apiKeyRoute(
  "CreateSession",
  { body: createSessionBody },
  async ({ caller, body, plannedUlid }) => {
    const session = await createSession(caller, body, Date.now(), plannedUlid);
    return jsonResponse(201, {
      id: session.id,
      name: session.name,
      agentName: session.agentName,
      userId: session.userId,
      conversationId: session.conversationId ?? null,
      status: session.status,
      createdAt: session.createdAt,
    });
  },
);
