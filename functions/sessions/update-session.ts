/** PATCH /api/sdk/sessions/{id}: record progress or the final outcome of a session. */
import { jsonResponse } from "../http/responses.js";
import { sdkRoute } from "../http/sdk-route.js";
import { updateSessionBody } from "../schemas/session-schemas.js";
import { updateSession } from "../store/session-store.js";

export const handler = sdkRoute(
  { scope: "sessions:write", body: updateSessionBody },
  async ({ principal, body, pathParameters }) => {
    const session = await updateSession(principal, pathParameters.id ?? "", body);
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
