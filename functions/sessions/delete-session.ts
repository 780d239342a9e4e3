/**
 * DELETE /api/sdk/sessions/{id}: the session, its events and its rollup contribution → 204, recorded in the
 * organisation's deletion audit with the key or user that asked. A deletion that runs out of time answers 503 with
 * Retry-After, not 500: it leaves a session that the same DELETE again finishes (session-deletion.ts).
 */
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { auditedDeletion, deleteSession } from "../store/sessions/session-deletion.js";

/** Seconds a client waits before asking again after a deletion ran out of time. */
const RETRY_AFTER_SECONDS = 2;

export const handler = apiKeyOrUserRoute(
  "DeleteSession",
  { timeoutRetryAfterSeconds: RETRY_AFTER_SECONDS },
  async ({ caller, pathParameters }) => {
    await deleteSession(caller, pathParameters.id ?? "", { receipt: auditedDeletion(caller) });
    return { statusCode: 204 };
  },
);
