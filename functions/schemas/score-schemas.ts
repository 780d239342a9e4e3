/** Request schemas of the score routes (issue 33). */
import * as z from "zod/mini";
import { LIMITS } from "../domain/limits.js";
import { SCORE_SOURCES, SCORE_VALUE_KINDS, type ScoreValue, valueKindOf } from "../domain/score.js";
import { enumeration, jsonSchemaOf, name, optional, serviceId, strictObject, text } from "./fields.js";

const VALUE_MESSAGE = `Must be a finite number, true or false, or a label of 1 to ${LIMITS.scoreLabelLength} characters`;
const MAGNITUDE_MESSAGE = `Must be a number from -${LIMITS.maxScoreMagnitude} to ${LIMITS.maxScoreMagnitude}, 0 or at least ${LIMITS.smallestNonZero} in magnitude`;

/** Why `value` cannot be a score's value, or undefined when it can. */
export function scoreValueProblem(value: unknown): string | undefined {
  if (typeof value === "boolean") return undefined;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return VALUE_MESSAGE;
    const magnitude = Math.abs(value);
    if (magnitude > LIMITS.maxScoreMagnitude || (magnitude !== 0 && magnitude < LIMITS.smallestNonZero)) {
      return MAGNITUDE_MESSAGE;
    }
    return undefined;
  }
  if (typeof value === "string") {
    // Characters are code points, as for every text field (an emoji is one).
    const characters = [...value].length;
    if (characters < 1 || characters > LIMITS.scoreLabelLength || !value.isWellFormed()) return VALUE_MESSAGE;
    return undefined;
  }
  return VALUE_MESSAGE;
}

/** A score's value: a finite number (numeric), a boolean, or a label (categorical). */
export const scoreValue = jsonSchemaOf(
  z.pipe(
    z.unknown().check(
      z.superRefine((value, context) => {
        const problem = value === undefined ? "Required" : scoreValueProblem(value);
        if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
      }),
    ),
    z.transform((value) => value as ScoreValue),
  ),
  {
    anyOf: [
      { type: "number", minimum: -LIMITS.maxScoreMagnitude, maximum: LIMITS.maxScoreMagnitude },
      { type: "boolean" },
      { type: "string", minLength: 1, maxLength: LIMITS.scoreLabelLength },
    ],
    description:
      "The verdict: a finite number (`numeric`), `true`/`false` (`boolean`) or a label (`categorical`); its JSON type is its kind.",
  },
);

const scoreFields = {
  /** The client's own id (`scr_` + ULID): sending it again replaces that score (a retry or an edit), never adds one. */
  id: optional(serviceId("score")),
  /** The target: exactly one of `sessionId` (with an optional `eventId`) and `conversationId`. */
  sessionId: optional(name()),
  eventId: optional(name()),
  conversationId: optional(name()),
  name: text(LIMITS.scoreNameLength),
  value: scoreValue,
  /** When sent, `value` must be of this kind (400 otherwise). */
  dataType: optional(enumeration(SCORE_VALUE_KINDS)),
  comment: optional(text(LIMITS.scoreCommentLength)),
  source: optional(enumeration(SCORE_SOURCES)),
};

const KIND_MESSAGES = {
  numeric: "Must be a number (dataType is numeric)",
  boolean: "Must be true or false (dataType is boolean)",
  categorical: "Must be a label, a string (dataType is categorical)",
} as const;

/** Why a score's target fields cannot stand together, on the field to fix; undefined when they can. */
export function scoreTargetProblem(score: {
  readonly sessionId?: unknown;
  readonly eventId?: unknown;
  readonly conversationId?: unknown;
}): { path: "sessionId" | "eventId" | "conversationId"; message: string } | undefined {
  const session = score.sessionId !== undefined;
  const conversation = score.conversationId !== undefined;
  if (session && conversation) {
    return {
      path: "conversationId",
      message: "Send either sessionId or conversationId, not both: a score has one target",
    };
  }
  if (!session && !conversation) {
    return { path: "sessionId", message: "Required: the score's target, sessionId (or conversationId)" };
  }
  if (conversation && score.eventId !== undefined) {
    return { path: "eventId", message: "Only with sessionId: a conversation's score has no event" };
  }
  return undefined;
}

/** One score: its fields, exactly one target, with `value` of the `dataType` named, if any. */
export const createScoreBody = strictObject(scoreFields).check(
  z.superRefine((score, context) => {
    const target = scoreTargetProblem(score);
    if (target !== undefined) context.addIssue({ code: "custom", path: [target.path], message: target.message });
    if (score.dataType !== undefined && valueKindOf(score.value) !== score.dataType) {
      context.addIssue({ code: "custom", path: ["value"], message: KIND_MESSAGES[score.dataType] });
    }
  }),
);
export type CreateScoreBody = z.output<typeof createScoreBody>;

/** The batch envelope; each score is validated on its own (createScoreBody) so valid ones are stored. */
export const createScoreBatchBody = strictObject({
  scores: z
    .array(jsonSchemaOf(z.unknown(), { type: "object", description: "A score as in CreateScoreRequest." }), {
      error: "Must be an array of scores",
    })
    .check(
      z.minLength(1, { error: "Must hold at least one score" }),
      z.maxLength(LIMITS.batchScores, { error: `Must hold at most ${LIMITS.batchScores} scores` }),
    ),
});
export type CreateScoreBatchBody = z.output<typeof createScoreBatchBody>;
