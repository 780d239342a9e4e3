/**
 * POST /api/sdk/scores/batch: up to 100 scores, each validated and authorised on its own; valid scores are
 * stored even when others fail. 200 with one result per score, in order: 201 (stored) or 200 (replaced) with
 * the id, else the score's error.
 */
import { AtsError, invalidFieldsError } from "../domain/errors.js";
import { type NewScore, plannedScoreId } from "../domain/score.js";
import { apiKeyOrUserRoute } from "../http/api-key-or-user-route.js";
import { errorResponse } from "../http/error-mapper.js";
import { toFieldIssues } from "../http/json-body.js";
import { jsonResponse } from "../http/responses.js";
import { logError } from "../runtime/log.js";
import { createScoreBatchBody, createScoreBody } from "../schemas/score-schemas.js";
import { recordScore } from "../store/scores/score-store.js";

type ItemResult = { index: number; status: number; id?: string; error?: unknown };

/** Scores written at once (each is a read or two and a transaction). */
const CONCURRENCY = 8;

function refusal(error: unknown): { status: number; error: unknown } {
  if (!(error instanceof AtsError)) logError("batch score failed", error);
  const mapped = errorResponse(error);
  return { status: mapped.statusCode ?? 500, error: JSON.parse(mapped.body ?? "{}") };
}

type Planned = { index: number; score: NewScore; scoreId: string };

/**
 * The scores in rounds of at most CONCURRENCY, in order, a round never holding two writes of the same score (the
 * same id in the same target): those are written one after the other, the later one replacing the earlier.
 */
function rounds(valid: readonly { index: number; score: NewScore }[], nowMs: number, plannedUlid?: string) {
  const groups: Planned[][] = [];
  let current: Planned[] = [];
  for (const { index, score } of valid) {
    const scoreId = score.id ?? plannedScoreId(plannedUlid, index, nowMs);
    const clash = current.some(
      (other) =>
        other.scoreId === scoreId &&
        other.score.sessionId === score.sessionId &&
        other.score.conversationId === score.conversationId,
    );
    if (current.length === CONCURRENCY || clash) {
      groups.push(current);
      current = [];
    }
    current.push({ index, score, scoreId });
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

export const handler = apiKeyOrUserRoute(
  "CreateScoreBatch",
  { body: createScoreBatchBody },
  async ({ caller, body, plannedUlid }) => {
    const nowMs = Date.now();
    const results: ItemResult[] = [];
    const valid: { index: number; score: NewScore }[] = [];
    body.scores.forEach((candidate, index) => {
      const parsed = createScoreBody.safeParse(candidate);
      if (!parsed.success) {
        results.push({ index, ...refusal(invalidFieldsError("score", toFieldIssues(parsed.error.issues))) });
        return;
      }
      const { dataType: _checked, ...score } = parsed.data;
      valid.push({ index, score });
    });
    for (const group of rounds(valid, nowMs, plannedUlid)) {
      const outcomes = await Promise.allSettled(
        group.map(({ score, scoreId }) => recordScore(caller, score, scoreId, nowMs)),
      );
      outcomes.forEach((outcome, offset) => {
        const index = group[offset]?.index ?? -1;
        results.push(
          outcome.status === "fulfilled"
            ? { index, status: outcome.value.replaced ? 200 : 201, id: outcome.value.score.id }
            : { index, ...refusal(outcome.reason) },
        );
      });
    }
    results.sort((a, b) => a.index - b.index);
    return jsonResponse(200, { results });
  },
);
