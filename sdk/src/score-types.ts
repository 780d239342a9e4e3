/**
 * Scores: verdicts on a run, one of its events, or a whole conversation (a user's thumbs-down, a reviewer's label, an
 * evaluator's number), sent to `POST /api/sdk/scores`. The value's JSON type is its kind: a number, a boolean, or a label.
 */
export type ScoreValue = number | boolean | string;

/** Who gave the verdict; the client sends `sdk` unless told otherwise. */
export type ScoreSource = "api" | "sdk" | "console" | "end_user" | "evaluator";

export interface ScoreFields {
  /** What is judged: `helpfulness`, `thumbs`, `correct`… (1–200 characters). */
  readonly name: string;
  readonly value: ScoreValue;
  /** One event of the run (`evt_…`), when the verdict is on that step rather than the whole run. */
  readonly eventId?: string | undefined;
  readonly comment?: string | undefined;
  /** Asserts the value's kind: the service refuses a value of another kind. */
  readonly dataType?: "numeric" | "boolean" | "categorical" | undefined;
  readonly source?: ScoreSource | undefined;
  /**
   * The score's id (`scr_` + ULID), to change a score given earlier: the same id replaces it. Without one the client
   * mints one, returned by `score()`.
   */
  readonly id?: string | undefined;
}

/** The fields of a conversation's score: a session's, without `eventId` (a conversation's score has no event). */
export type ConversationScoreFields = Omit<ScoreFields, "eventId">;

/** Why `fields` cannot be sent as a conversation's score, or undefined when they can. */
export function conversationScoreProblem(fields: ConversationScoreFields): string | undefined {
  const problem = scoreProblem(fields);
  if (problem !== undefined) return problem;
  if ((fields as ScoreFields).eventId !== undefined) {
    return `score ${fields.name}: a conversation's score has no eventId (score the run's event with score(sessionId, …))`;
  }
  return undefined;
}

/** Why `fields` cannot be sent as a score, or undefined when they can. */
export function scoreProblem(fields: ScoreFields): string | undefined {
  if (typeof fields !== "object" || fields === null) return "score fields must be an object";
  if (typeof fields.name !== "string" || fields.name.trim() === "") return "a score needs a name";
  const { value } = fields;
  if (typeof value === "number" && !Number.isFinite(value)) return `score ${fields.name}: value must be finite`;
  if (typeof value === "string" && value === "") return `score ${fields.name}: a label must not be empty`;
  if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "string") {
    return `score ${fields.name}: value must be a number, a boolean or a label`;
  }
  return undefined;
}

/** The request body of one score of `sessionId`, with its id. */
export function scoreBody(sessionId: string, id: string, fields: ScoreFields): Record<string, unknown> {
  return targetedScoreBody({ sessionId }, id, fields);
}

/** The request body of one score of a whole conversation, with its id (no `sessionId`, no `eventId`). */
export function conversationScoreBody(
  conversationId: string,
  id: string,
  fields: ConversationScoreFields,
): Record<string, unknown> {
  return targetedScoreBody({ conversationId }, id, { ...fields, eventId: undefined });
}

function targetedScoreBody(
  target: { readonly sessionId: string } | { readonly conversationId: string },
  id: string,
  fields: ScoreFields,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id,
    ...target,
    name: fields.name,
    value: fields.value,
    source: fields.source ?? "sdk",
  };
  if (fields.eventId !== undefined) body.eventId = fields.eventId;
  if (fields.comment !== undefined) body.comment = fields.comment;
  if (fields.dataType !== undefined) body.dataType = fields.dataType;
  return body;
}
