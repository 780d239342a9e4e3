/**
 * The score item (issue 33), tagged `entity: "score"`, in its target's partition and with its target's `ttl`, so
 * it expires and is deleted with the target: a session's score `SESSION#<sessionId>` / `SCORE#<scoreId>`, a
 * conversation's `CONVERSATION#<tenant>#<enc(id)>` / `SCORE#<scoreId>`. It carries what counting will need without
 * reading the target (tenant, agent, day, name, value kind and value): the stream consumer sees its INSERT, MODIFY
 * and REMOVE like any item's.
 *
 * The author is stored flat (`authorKind`, `authorId`) and read back as `author`.
 */
import { SCORE_AUTHOR_KINDS, type Score, type ScoreAuthor } from "../../domain/score.js";
import { defineEntity, type Item } from "../table/entity.js";
import { conversationScoreKey, type ItemKey, scoreKey } from "../table/keys.js";

export const SCORE_ENTITY = "score";

/** What is written: the score and its expiry (the session's), with its counting bookkeeping. */
export interface ScoreRecord {
  readonly score: Score;
  readonly ttl: number;
  /** +1 per write of the score, the stream consumer's included: every write is conditional on it. */
  readonly countVersion: number;
  /** What the stream consumer counted of the score so far (score-stream-counting.ts), carried by a replacement. */
  readonly counted?: unknown;
  /** The session's rollup retention, for the expiry of the rollup items the score is counted into. */
  readonly rollupRetentionDays?: number | undefined;
  /** Whether the score is counted in its target's SCORECOUNT (every score written since the count existed). */
  readonly inScoreCount: boolean;
}

/** The attribute saying a score is counted in its target's SCORECOUNT, so its deletion takes exactly it back. */
export const IN_SCORE_COUNT_ATTRIBUTE = "inScoreCount";

/**
 * The score item's counting bookkeeping (never part of the score read back): `countPending` (true from a write by
 * a request until the consumer has counted it: the stream filter passes only such changes), `counted`,
 * `countVersion`, `rollupRetentionDays`.
 */
export const SCORE_COUNTING_ATTRIBUTES = [
  "countPending",
  "counted",
  "countVersion",
  "rollupRetentionDays",
  IN_SCORE_COUNT_ATTRIBUTE,
];

function authorFrom(fields: Item): ScoreAuthor {
  const kind = SCORE_AUTHOR_KINDS.find((known) => known === fields.authorKind) ?? "apiKey";
  return { kind, id: String(fields.authorId) };
}

/** A score's item key: in its session's partition, or in its conversation's. */
export function scoreItemKey(
  score: Pick<Score, "id" | "sessionId" | "conversationId" | "orgId" | "environment">,
): ItemKey {
  if (score.conversationId !== undefined) {
    return conversationScoreKey(score.orgId, score.environment, score.conversationId, score.id);
  }
  if (score.sessionId === undefined) throw new Error(`Score ${score.id} names no target`);
  return scoreKey(score.sessionId, score.id);
}

export const scoreEntity = defineEntity<Score, ScoreRecord>({
  tag: SCORE_ENTITY,
  fields: {
    id: "string",
    orgId: "string",
    environment: "string",
    name: "string",
    valueKind: "string",
    source: "string",
    authorId: "string",
    createdAt: "string",
    updatedAt: "string",
  },
  storageAttributes: ["ttl", ...SCORE_COUNTING_ATTRIBUTES],
  key: ({ score }) => scoreItemKey(score),
  attributes: ({ score, ttl, countVersion, counted, rollupRetentionDays, inScoreCount }) => {
    const { author, sessionId, eventId, conversationId, comment, ...stored } = score;
    return {
      ...stored,
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(eventId === undefined ? {} : { eventId }),
      ...(conversationId === undefined ? {} : { conversationId }),
      ...(comment === undefined ? {} : { comment }),
      authorKind: author.kind,
      authorId: author.id,
      ttl,
      countPending: true,
      countVersion,
      ...(counted === undefined ? {} : { counted }),
      ...(rollupRetentionDays === undefined ? {} : { rollupRetentionDays }),
      ...(inScoreCount ? { [IN_SCORE_COUNT_ATTRIBUTE]: true } : {}),
    };
  },
  fromFields: (fields) => {
    const { authorKind: _kind, authorId: _id, ...score } = fields;
    // The declared fields were checked by the entity; value, eventId and comment are the score's own.
    return { ...(score as unknown as Omit<Score, "author">), author: authorFrom(fields) };
  },
});
