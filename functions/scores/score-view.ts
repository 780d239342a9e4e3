/** A score as the API shows it: its fields, absent ones as null; the counting fields stay in the store. */
import type { Score } from "../domain/score.js";

export function scoreView(score: Score) {
  return {
    id: score.id,
    sessionId: score.sessionId,
    eventId: score.eventId ?? null,
    name: score.name,
    value: score.value,
    valueKind: score.valueKind,
    comment: score.comment ?? null,
    source: score.source,
    author: { kind: score.author.kind, id: score.author.id },
    createdAt: score.createdAt,
    updatedAt: score.updatedAt,
  };
}
