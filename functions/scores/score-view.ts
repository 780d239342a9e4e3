/**
 * A score as the API shows it: its fields, absent ones as null (a session's score has a null `conversationId`, a
 * conversation's null `sessionId` and `eventId`); the counting fields stay in the store.
 */
import type { Score } from "../domain/score.js";

export function scoreView(score: Score) {
  return {
    id: score.id,
    sessionId: score.sessionId ?? null,
    eventId: score.eventId ?? null,
    conversationId: score.conversationId ?? null,
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
