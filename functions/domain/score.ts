/**
 * Scores (issue 33, "Verdicts"): a named verdict on a session, on one event of it, or on a conversation. Pure: the
 * value kinds, the sources, who gave a score, what it targets. No I/O, no HTTP.
 */
import { createHash } from "node:crypto";
import type { Environment } from "./api-key.js";
import { derivedUlid, idTime, newId } from "./ids.js";
import type { Principal } from "./principal.js";

/** What a score's value is: a finite number, true/false, or a label (categorical). */
export const SCORE_VALUE_KINDS = ["numeric", "boolean", "categorical"] as const;
export type ScoreValueKind = (typeof SCORE_VALUE_KINDS)[number];
export type ScoreValue = number | boolean | string;

/** Where a score comes from. */
export const SCORE_SOURCES = ["api", "sdk", "console", "end_user", "evaluator"] as const;
export type ScoreSource = (typeof SCORE_SOURCES)[number];

/** What gave a score: an API key, a signed-in user (console or API with an access token), an end user's feedback token. */
export const SCORE_AUTHOR_KINDS = ["apiKey", "user", "feedbackToken"] as const;

/**
 * Who gave a score: the API key that wrote it, the signed-in user (console or API with an access token), or the
 * feedback token an end user posted it with (`fbt_…`, issue 33).
 */
export interface ScoreAuthor {
  readonly kind: (typeof SCORE_AUTHOR_KINDS)[number];
  readonly id: string;
}

/** What a client sends to record a score (already validated). */
export interface NewScore {
  /** The client's own id (`scr_` + ULID): a retry or an edit replaces that score. */
  readonly id?: string | undefined;
  /** The target: a session (and optionally one event of it) or a conversation, exactly one (scoreTargetOf). */
  readonly sessionId?: string | undefined;
  readonly eventId?: string | undefined;
  readonly conversationId?: string | undefined;
  readonly name: string;
  readonly value: ScoreValue;
  readonly comment?: string | undefined;
  readonly source?: ScoreSource | undefined;
}

/** What a score is given to: a session (or one event of it), or a conversation. */
export type ScoreTarget =
  | { readonly kind: "session"; readonly sessionId: string; readonly eventId?: string | undefined }
  | { readonly kind: "conversation"; readonly conversationId: string };

/**
 * The target a validated score names. The request schema admits exactly one of `sessionId` and `conversationId`
 * (and `eventId` only with `sessionId`); this throws if a caller bypassed it.
 */
export function scoreTargetOf(score: Pick<NewScore, "sessionId" | "eventId" | "conversationId">): ScoreTarget {
  if (score.sessionId !== undefined && score.conversationId === undefined) {
    return { kind: "session", sessionId: score.sessionId, eventId: score.eventId };
  }
  if (score.conversationId !== undefined && score.sessionId === undefined && score.eventId === undefined) {
    return { kind: "conversation", conversationId: score.conversationId };
  }
  throw new Error("A score names exactly one target: sessionId (with an optional eventId) or conversationId");
}

/** A stored score, with what the stream consumer will need to count it (its target's tenant, agent and day). */
export interface Score {
  readonly id: string;
  /** Its target: `sessionId` (and `eventId`) for a session's score, `conversationId` for a conversation's. */
  readonly sessionId?: string | undefined;
  readonly eventId?: string | undefined;
  readonly conversationId?: string | undefined;
  readonly orgId: string;
  readonly environment: Environment;
  /**
   * The agent and day (UTC) it is counted under, copied so counting needs no read of the target: a session's
   * score, the session's agent and start day; a conversation's, the conversation's agent (its first run's) and the
   * day the score was first written.
   */
  readonly agentName: string;
  readonly sessionDay: string;
  readonly name: string;
  readonly valueKind: ScoreValueKind;
  readonly value: ScoreValue;
  readonly comment?: string | undefined;
  readonly source: ScoreSource;
  readonly author: ScoreAuthor;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The kind of a value, from its JSON type. */
export function valueKindOf(value: ScoreValue): ScoreValueKind {
  if (typeof value === "number") return "numeric";
  if (typeof value === "boolean") return "boolean";
  return "categorical";
}

/** Who gives a score written by `principal`. */
export function authorOf(principal: Principal): ScoreAuthor {
  if (principal.feedbackTokenId !== undefined) return { kind: "feedbackToken", id: principal.feedbackTokenId };
  return principal.signedInUserId === undefined
    ? { kind: "apiKey", id: principal.keyId }
    : { kind: "user", id: principal.signedInUserId };
}

/** A score's source when the client names none: `end_user` through a feedback token, `console` for a signed-in user, `api` for a key. */
export function defaultSourceOf(principal: Principal): ScoreSource {
  if (principal.feedbackTokenId !== undefined) return "end_user";
  return principal.signedInUserId === undefined ? "api" : "console";
}

/**
 * The id of a score the client sent without one: with an Idempotency-Key, fixed by the key's planned ULID
 * (and the score's position in a batch), so a retry after a server error replaces the score its first
 * attempt wrote; otherwise a fresh id.
 */
export function plannedScoreId(plannedUlid: string | undefined, position: number, nowMs: number): string {
  if (plannedUlid === undefined) return newId("score", nowMs);
  const seed = createHash("sha256").update(`${plannedUlid}#${position}`).digest();
  return `scr_${derivedUlid(idTime(`scr_${plannedUlid}`), seed)}`;
}
