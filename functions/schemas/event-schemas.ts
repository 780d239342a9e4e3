/** Request schema of the event route. */
import * as z from "zod";
import { EVENT_TYPES } from "../domain/event.js";
import { LIMITS } from "../domain/limits.js";
import { boundedNumber, enumeration, jsonObject, optional, text } from "./fields.js";

const alternatives = z
  .array(text(LIMITS.alternativeLength), { error: "Must be an array of strings" })
  .max(LIMITS.alternativesCount, { error: `Must have at most ${LIMITS.alternativesCount} entries` });

export const createEventBody = z.strictObject({
  sessionId: text(LIMITS.nameLength),
  eventType: enumeration(EVENT_TYPES),
  toolName: optional(text(LIMITS.nameLength)),
  toolInput: optional(jsonObject(LIMITS.toolPayloadBytes)),
  toolOutput: optional(jsonObject(LIMITS.toolPayloadBytes)),
  reasoning: optional(text(LIMITS.reasoningLength)),
  alternativesConsidered: optional(alternatives),
  confidence: optional(boundedNumber(0, 1)),
  estimatedCost: optional(boundedNumber(0, LIMITS.maxCostUsd)),
});
export type CreateEventBody = z.output<typeof createEventBody>;
