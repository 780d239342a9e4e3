/** POST /api/sdk/sessions: start a session for one agent run. */
import { jsonResponse } from "../http/responses.js";
import { sdkRoute } from "../http/sdk-route.js";
import { createSessionBody } from "../schemas/session-schemas.js";
import { createSession } from "../store/session-store.js";

export const handler = sdkRoute({ scope: "sessions:write", body: createSessionBody }, async ({ principal, body }) => {
  const session = await createSession(principal, body);
  return jsonResponse(201, {
    id: session.id,
    name: session.name,
    agentName: session.agentName,
    userId: session.userId,
    status: session.status,
    createdAt: session.createdAt,
  });
});
