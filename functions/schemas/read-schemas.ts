/** Query-string schemas of the read routes (every value arrives as a string). */
import * as z from "zod/mini";
import { EVENT_TYPES } from "../domain/event.js";
import { LIMITS } from "../domain/limits.js";
import { SESSION_STATUSES } from "../domain/session.js";
import { enumeration, name, strictObject, text, wrongType } from "./fields.js";

/** A string; any other value fails with zod's English message (the request schemas are zod/mini: no locale). */
const string = () => z.string({ error: wrongType("string") });

const isoTimestamp = z.iso.datetime({
  offset: true,
  error: "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z",
});
/** Normalised to UTC (`…Z`), the form the sort keys use. */
const utcTimestamp = z.pipe(
  isoTimestamp,
  z.transform((value: string) => new Date(value).toISOString()),
);
const DAY_MESSAGE = "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp";
/** A whole UTC day (`YYYY-MM-DD`) or an ISO 8601 timestamp (of which the stats routes take the UTC day). */
export const isoDay = z.union([
  string().check(
    z.regex(/^\d{4}-\d{2}-\d{2}$/, { error: DAY_MESSAGE }),
    z.refine(
      (value) => {
        const parsed = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
      },
      { error: DAY_MESSAGE },
    ),
  ),
  isoTimestamp,
]);

function integerParameter(min: number, max: number, fallback: number) {
  const message = `Must be an integer from ${min} to ${max}`;
  return z.pipe(
    z.optional(
      z.pipe(
        z.pipe(string().check(z.regex(/^\d+$/, { error: message })), z.transform(Number)),
        z.number({ error: wrongType("number") }).check(
          // Digits only reach here: an integer, too big for a safe integer at worst (zod's English message).
          z.int({ error: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}` }),
          z.gte(min, { error: message }),
          z.lte(max, { error: message }),
        ),
      ),
    ),
    z.transform((value: number | undefined) => value ?? fallback),
  );
}

function confidenceParameter() {
  const message = "Must be a number from 0 to 1";
  return z.optional(z.pipe(string().check(z.regex(/^(0(\.\d+)?|1(\.0+)?)$/, { error: message })), z.transform(Number)));
}

const cursor = z.optional(
  string().check(
    z.minLength(1, {
      // zod's English message (the length check also runs on non-strings that have a length).
      error: (issue) =>
        `Too small: expected ${issue.origin} to ${issue.origin === "string" ? "have >=1 characters" : issue.origin === "array" ? "have >=1 items" : "be >=1"}`,
    }),
    z.maxLength(4096, { error: "Invalid cursor" }),
  ),
);

/** `to` not before `from` (when both are given). */
export function orderedRange<T extends { from?: string | undefined; to?: string | undefined }>(
  value: T,
  context: z.core.$RefinementCtx<T>,
) {
  if (value.from !== undefined && value.to !== undefined && Date.parse(value.from) > Date.parse(value.to)) {
    context.addIssue({ code: "custom", path: ["to"], message: "Must not be before from" });
  }
}

/** A finite decimal number in a query string (`-2.5`, `0.75`, `1e3`). */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const numberParameter = z.pipe(
  string().check(
    z.refine((value) => DECIMAL.test(value) && Number.isFinite(Number(value)), { error: "Must be a number" }),
  ),
  z.transform(Number),
);

/** The score filter's parameters go together: a value condition needs `scoreName`, and one kind of condition at most. */
function scoreFilterRules(
  value: {
    scoreName?: string | undefined;
    scoreMin?: number | undefined;
    scoreMax?: number | undefined;
    scoreLabel?: string | undefined;
    scoreValue?: string | undefined;
  },
  context: z.core.$RefinementCtx<typeof value>,
) {
  const numeric = value.scoreMin !== undefined || value.scoreMax !== undefined;
  const conditions = [numeric, value.scoreLabel !== undefined, value.scoreValue !== undefined].filter(Boolean).length;
  if (conditions > 0 && value.scoreName === undefined) {
    context.addIssue({
      code: "custom",
      path: ["scoreName"],
      message: "Required with scoreMin, scoreMax, scoreLabel or scoreValue",
    });
  }
  if (conditions > 1) {
    context.addIssue({
      code: "custom",
      path: ["scoreName"],
      message: "Give one of scoreMin/scoreMax, scoreLabel or scoreValue",
    });
  }
  if (value.scoreMin !== undefined && value.scoreMax !== undefined && value.scoreMin > value.scoreMax) {
    context.addIssue({ code: "custom", path: ["scoreMax"], message: "Must not be below scoreMin" });
  }
}

export const listSessionsQuery = strictObject({
  agentName: z.optional(name()),
  userId: z.optional(name()),
  status: z.optional(enumeration(SESSION_STATUSES)),
  from: z.optional(utcTimestamp),
  to: z.optional(utcTimestamp),
  failureReason: z.optional(text(LIMITS.failureReasonLength)),
  toolName: z.optional(name()),
  toolError: z.optional(name()),
  nameContains: z.optional(name()),
  scoreName: z.optional(text(LIMITS.scoreNameLength)),
  scoreMin: z.optional(numberParameter),
  scoreMax: z.optional(numberParameter),
  scoreLabel: z.optional(text(LIMITS.scoreLabelLength)),
  scoreValue: z.optional(enumeration(["true", "false"])),
  limit: integerParameter(1, 100, 50),
  cursor,
})
  .check(z.superRefine(orderedRange))
  .check(z.superRefine(scoreFilterRules));
export type ListSessionsQuery = z.output<typeof listSessionsQuery>;

export const listEventsQuery = strictObject({
  eventType: z.optional(enumeration(EVENT_TYPES)),
  toolName: z.optional(name()),
  minConfidence: confidenceParameter(),
  maxConfidence: confidenceParameter(),
  fields: z.optional(z.enum(["summary", "full"], { error: "Must be summary or full" })),
  limit: integerParameter(1, 100, 50),
  cursor,
}).check(
  z.superRefine((value, context) => {
    if (
      value.minConfidence !== undefined &&
      value.maxConfidence !== undefined &&
      value.minConfidence > value.maxConfidence
    ) {
      context.addIssue({ code: "custom", path: ["maxConfidence"], message: "Must not be below minConfidence" });
    }
  }),
);
export type ListEventsQuery = z.output<typeof listEventsQuery>;

/** GET /api/sdk/conversations: the tenant's conversations, newest first by their first run's start. */
export const listConversationsQuery = strictObject({
  agentName: z.optional(name()),
  userId: z.optional(name()),
  from: z.optional(utcTimestamp),
  to: z.optional(utcTimestamp),
  limit: integerParameter(1, 100, 50),
  cursor,
}).check(z.superRefine(orderedRange));
export type ListConversationsQuery = z.output<typeof listConversationsQuery>;

/** GET /api/sdk/conversations/{id}: a page of its runs, oldest first. */
export const getConversationQuery = strictObject({ limit: integerParameter(1, 100, 50), cursor });
export type GetConversationQuery = z.output<typeof getConversationQuery>;

/** GET /api/sdk/sessions/{id}/scores: a page of a session's scores, oldest first. */
export const listScoresQuery = strictObject({ limit: integerParameter(1, 100, 50), cursor });
export type ListScoresQuery = z.output<typeof listScoresQuery>;

/** Stats periods are whole UTC days; default the last 30 days, at most 366. */
export const statsQuery = strictObject({ from: z.optional(isoDay), to: z.optional(isoDay) }).check(
  z.superRefine(orderedRange),
);
export type StatsQuery = z.output<typeof statsQuery>;

/** GET /api/sdk/agents: with a period (`from` and/or `to`, as for stats), each agent's totals over it too. */
export const listAgentsQuery = statsQuery;
