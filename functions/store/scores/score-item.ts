/**
 * The score item (issue 33): `SESSION#<sessionId>` / `SCORE#<scoreId>`, tagged `entity: "score"`, in its
 * session's partition and with its session's `ttl`, so it expires and is deleted with the session. It carries
 * what counting will need without reading the session (tenant, agent, the session's start day, name, value
 * kind and value): the stream consumer sees its INSERT, MODIFY and REMOVE like any item's.
 *
 * The author is stored flat (`authorKind`, `authorId`) and read back as `author`.
 */
import { SCORE_AUTHOR_KINDS, type Score, type ScoreAuthor } from "../../domain/score.js";
import { defineEntity, type Item } from "../table/entity.js";
import { scoreKey } from "../table/keys.js";

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
}

/**
 * The score item's counting bookkeeping (never part of the score read back): `countPending` (true from a write by
 * a request until the consumer has counted it: the stream filter passes only such changes), `counted`,
 * `countVersion`, `rollupRetentionDays`.
 */
export const SCORE_COUNTING_ATTRIBUTES = ["countPending", "counted", "countVersion", "rollupRetentionDays"];

function authorFrom(fields: Item): ScoreAuthor {
  const kind = SCORE_AUTHOR_KINDS.find((known) => known === fields.authorKind) ?? "apiKey";
  return { kind, id: String(fields.authorId) };
}

export const scoreEntity = defineEntity<Score, ScoreRecord>({
  tag: SCORE_ENTITY,
  fields: {
    id: "string",
    sessionId: "string",
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
  key: ({ score }) => scoreKey(score.sessionId, score.id),
  attributes: ({ score, ttl, countVersion, counted, rollupRetentionDays }) => {
    const { author, eventId, comment, ...stored } = score;
    return {
      ...stored,
      ...(eventId === undefined ? {} : { eventId }),
      ...(comment === undefined ? {} : { comment }),
      authorKind: author.kind,
      authorId: author.id,
      ttl,
      countPending: true,
      countVersion,
      ...(counted === undefined ? {} : { counted }),
      ...(rollupRetentionDays === undefined ? {} : { rollupRetentionDays }),
    };
  },
  fromFields: (fields) => {
    const { authorKind: _kind, authorId: _id, ...score } = fields;
    // The declared fields were checked by the entity; value, eventId and comment are the score's own.
    return { ...(score as unknown as Omit<Score, "author">), author: authorFrom(fields) };
  },
});
