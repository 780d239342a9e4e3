/** POST /api/sdk/events: record a tool call, decision, state change or error. */

import { LIMITS } from "../domain/limits.js";
import { apiKeyRoute } from "../http/api-key-route.js";
import { jsonResponse } from "../http/responses.js";
import { createEventBody } from "../schemas/event-schemas.js";
import { createEvent } from "../store/events/event-store.js";

export const handler = apiKeyRoute(
  "CreateEvent",
  { body: createEventBody, maxBodyBytes: LIMITS.eventBodyBytes },
  async ({ caller, body, plannedUlid, recordIngested }) => {
    const event = await createEvent(caller, body, Date.now(), plannedUlid);
    recordIngested(1);
    return jsonResponse(201, {
      id: event.id,
      sessionId: event.sessionId,
      eventType: event.eventType,
      toolName: event.toolName ?? null,
      createdAt: event.createdAt,
    });
  },
);
