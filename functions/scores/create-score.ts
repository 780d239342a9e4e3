/**
 * POST /api/sdk/scores: a score on a session, or on one event of it → 201; with the id of an existing score
 * of the session, that score is replaced → 200.
 */
import { plannedScoreId } from "../domain/score.js";
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { jsonResponse } from "../http/responses.js";
import { createScoreBody } from "../schemas/score-schemas.js";
import { recordScore } from "../store/scores/score-store.js";
import { scoreView } from "./score-view.js";

export const handler = apiKeyOrUserRoute(
  "CreateScore",
  { body: createScoreBody },
  async ({ caller, body, plannedUlid }) => {
    const nowMs = Date.now();
    const { dataType: _checked, ...score } = body;
    const recorded = await recordScore(caller, score, score.id ?? plannedScoreId(plannedUlid, 0, nowMs), nowMs);
    return jsonResponse(recorded.replaced ? 200 : 201, scoreView(recorded.score));
  },
);
