/** GET /api/sdk/sessions/{id}: one session with every stored field, its counters and its first scores. */
import { LIMITS } from "../domain/limits.js";
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { scoreView } from "../scores/score-view.js";
import { firstScoresOf } from "../store/scores/score-store.js";
import { getSession } from "../store/sessions/session-store.js";
import { sessionKey } from "../store/table/keys.js";
import { sessionView } from "./session-view.js";

export const handler = apiKeyOrUserReadRoute("GetSession", {}, async ({ caller, pathParameters }) => {
  const session = await getSession(caller, pathParameters.id ?? "");
  const { scores, truncated } = await firstScoresOf(sessionKey(session.id).PK, LIMITS.sessionScoresShown);
  return jsonResponse(200, { ...sessionView(session), scores: scores.map(scoreView), scoresTruncated: truncated });
});
