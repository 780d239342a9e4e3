/** POST /api/sdk/events: record a tool call, decision, state change or error. */
import { jsonResponse } from "../http/responses.js";
import { sdkRoute } from "../http/sdk-route.js";
import { createEventBody } from "../schemas/event-schemas.js";
import { createEvent } from "../store/event-store.js";

export const handler = sdkRoute({ scope: "events:write", body: createEventBody }, async ({ principal, body }) => {
  const event = await createEvent(principal, body);
  return jsonResponse(201, {
    id: event.id,
    sessionId: event.sessionId,
    eventType: event.eventType,
    toolName: event.toolName ?? null,
    createdAt: event.createdAt,
  });
});
