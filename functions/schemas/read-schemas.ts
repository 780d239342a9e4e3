/** Query-string schemas of the read routes (every value arrives as a string). */
import * as z from "zod";
import { EVENT_TYPES } from "../domain/event.js";
import { LIMITS } from "../domain/limits.js";
import { SESSION_STATUSES } from "../domain/session.js";
import { enumeration, text } from "./fields.js";

const isoTimestamp = z.iso.datetime({
  offset: true,
  error: "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z",
});
/** Normalised to UTC (`…Z`), the form the sort keys use. */
const utcTimestamp = isoTimestamp.transform((value) => new Date(value).toISOString());
const DAY_MESSAGE = "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp";
const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: DAY_MESSAGE })
  .refine(
    (value) => {
      const parsed = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
    },
    { error: DAY_MESSAGE },
  )
  .or(isoTimestamp);

function integerParameter(min: number, max: number, fallback: number) {
  const message = `Must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, { error: message })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: message }).max(max, { error: message }))
    .optional()
    .transform((value) => value ?? fallback);
}

function confidenceParameter() {
  const message = "Must be a number from 0 to 1";
  return z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, { error: message })
    .transform(Number)
    .optional();
}

const cursor = z.string().min(1).max(4096, { error: "Invalid cursor" }).optional();

function orderedRange<T extends { from?: string | undefined; to?: string | undefined }>(
  value: T,
  context: z.RefinementCtx,
) {
  if (value.from !== undefined && value.to !== undefined && Date.parse(value.from) > Date.parse(value.to)) {
    context.addIssue({ code: "custom", path: ["to"], message: "Must not be before from" });
  }
}

export const listSessionsQuery = z
  .strictObject({
    agentName: text(LIMITS.nameLength).optional(),
    userId: text(LIMITS.nameLength).optional(),
    status: enumeration(SESSION_STATUSES).optional(),
    from: utcTimestamp.optional(),
    to: utcTimestamp.optional(),
    limit: integerParameter(1, 100, 50),
    cursor,
  })
  .superRefine(orderedRange);
export type ListSessionsQuery = z.output<typeof listSessionsQuery>;

export const listEventsQuery = z
  .strictObject({
    eventType: enumeration(EVENT_TYPES).optional(),
    toolName: text(LIMITS.nameLength).optional(),
    minConfidence: confidenceParameter(),
    maxConfidence: confidenceParameter(),
    fields: z.enum(["summary", "full"], { error: "Must be summary or full" }).optional(),
    limit: integerParameter(1, 100, 50),
    cursor,
  })
  .superRefine((value, context) => {
    if (
      value.minConfidence !== undefined &&
      value.maxConfidence !== undefined &&
      value.minConfidence > value.maxConfidence
    ) {
      context.addIssue({ code: "custom", path: ["maxConfidence"], message: "Must not be below minConfidence" });
    }
  });
export type ListEventsQuery = z.output<typeof listEventsQuery>;

/** Stats periods are whole UTC days; default the last 30 days, at most 366. */
export const statsQuery = z.strictObject({ from: isoDay.optional(), to: isoDay.optional() }).superRefine(orderedRange);
export type StatsQuery = z.output<typeof statsQuery>;
