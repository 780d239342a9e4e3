/** PATCH /api/sdk/sessions/{id}: record progress or the final outcome of a session. */

import { apiKeyRoute } from "../http/api-key-route.js";
import { jsonResponse } from "../http/responses.js";
import { updateSessionBody } from "../schemas/session-schemas.js";
import { updateSession } from "../store/sessions/session-store.js";

export const handler = apiKeyRoute(
  "UpdateSession",
  { body: updateSessionBody },
  async ({ caller, body, pathParameters }) => {
    const session = await updateSession(caller, pathParameters.id ?? "", body);
    return jsonResponse(200, {
      id: session.id,
      name: session.name,
      status: session.status,
      success: session.success ?? null,
      estimatedCost: session.estimatedCost ?? null,
      durationMs: session.durationMs ?? null,
      completedAt: session.completedAt ?? null,
    });
  },
);
