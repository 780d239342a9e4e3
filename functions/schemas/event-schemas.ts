/** Request schema of the event route. */
import * as z from "zod/mini";
import { EVENT_TYPES } from "../domain/event.js";
import { LIMITS } from "../domain/limits.js";
import { TOKEN_USAGE_FIELDS, type TokenUsage } from "../pricing/usage.js";
import {
  boundedNumber,
  enumeration,
  isoTimestamp,
  jsonObject,
  jsonSchemaOf,
  name,
  optional,
  serviceId,
  strictObject,
  text,
} from "./fields.js";

const alternatives = z
  .array(text(LIMITS.alternativeLength), { error: "Must be an array of strings" })
  .check(z.maxLength(LIMITS.alternativesCount, { error: `Must have at most ${LIMITS.alternativesCount} entries` }));

/** When the client says the event happened (ISO 8601, normalised to UTC); checked against now and retention by the store. */
const occurredAt = isoTimestamp();

/** The model's name: 1 to 256 characters once trimmed (and at most 768 bytes, like every name), stored trimmed. */
const model = jsonSchemaOf(
  z.pipe(
    z.pipe(
      z.string({ error: (issue) => (issue.input === undefined ? "Required" : "Must be a string") }),
      z.transform((value: string) => value.trim()),
    ),
    name(),
  ),
  {
    type: "string",
    minLength: 1,
    maxLength: LIMITS.nameLength,
    description: `The model the provider answered with: 1 to ${LIMITS.nameLength} characters once trimmed (at most ${LIMITS.nameBytes} bytes as UTF-8), stored trimmed; priced with \`usage\` when no \`estimatedCost\` is sent.`,
  },
);

const tokenCount = () => optional(boundedNumber(0, LIMITS.maxTokens, { integer: true }));

/**
 * A model call's token usage (functions/pricing/usage.ts): each count a non-negative integer up to
 * `LIMITS.maxTokens`; unknown keys refused, so a misspelt count is an error, not a silently unpriced call.
 */
const usage = strictObject(
  Object.fromEntries(TOKEN_USAGE_FIELDS.map((field) => [field, tokenCount()])) as Record<
    (typeof TOKEN_USAGE_FIELDS)[number],
    ReturnType<typeof tokenCount>
  >,
);

/** The usage with only the counts that were sent (an absent or null count leaves no key). */
const usageWithoutGaps = z.pipe(
  usage,
  z.transform((value): TokenUsage => {
    const present: Record<string, number> = {};
    for (const field of TOKEN_USAGE_FIELDS) {
      const count = value[field];
      if (count !== undefined) present[field] = count;
    }
    return present;
  }),
);

const eventFields = {
  /**
   * The client's own id for the event (`evt_` + ULID, as the SDK mints them): a retry names the very same
   * event, so it is stored once; its ULID time orders the session's timeline.
   */
  id: optional(serviceId("event")),
  sessionId: name(),
  eventType: enumeration(EVENT_TYPES),
  toolName: optional(name()),
  toolInput: optional(jsonObject(LIMITS.toolPayloadBytes)),
  toolOutput: optional(jsonObject(LIMITS.toolPayloadBytes)),
  reasoning: optional(text(LIMITS.reasoningLength)),
  alternativesConsidered: optional(alternatives),
  confidence: optional(boundedNumber(0, 1)),
  estimatedCost: optional(boundedNumber(0, LIMITS.maxCostUsd)),
  occurredAt: optional(occurredAt),
  /** How long the call or step took, in whole milliseconds, from `occurredAt` (its start). */
  durationMs: optional(boundedNumber(0, LIMITS.maxDurationMs, { integer: true })),
  model: optional(model),
  usage: optional(usageWithoutGaps),
};

export const createEventBody = strictObject(eventFields);
export type CreateEventBody = z.output<typeof createEventBody>;

/** One event of a batch: an event, plus an optional per-event idempotency key. */
export const batchEventItem = strictObject({
  ...eventFields,
  idempotencyKey: optional(
    z
      .string({ error: "Must be a string" })
      .check(z.regex(/^[\x21-\x7e]{1,255}$/, { error: "Must be 1 to 255 visible ASCII characters" })),
  ),
});
export type BatchEventItem = z.output<typeof batchEventItem>;

/** The batch envelope; each event is validated on its own (batchEventItem) so valid ones are stored. */
export const createEventBatchBody = strictObject({
  events: z
    .array(
      jsonSchemaOf(z.unknown(), {
        type: "object",
        description:
          "An event as in CreateEventRequest, plus an optional `idempotencyKey` (1 to 255 visible ASCII characters).",
      }),
      { error: "Must be an array of events" },
    )
    .check(
      z.minLength(1, { error: "Must hold at least one event" }),
      z.maxLength(LIMITS.batchEvents, { error: `Must hold at most ${LIMITS.batchEvents} events` }),
    ),
});
export type CreateEventBatchBody = z.output<typeof createEventBatchBody>;
