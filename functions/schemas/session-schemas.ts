/** Request schemas of the session routes. */
import * as z from "zod/mini";
import { LIMITS } from "../domain/limits.js";
import { COMPLETED_AT_WITHOUT_STATUS, FINAL_STATUSES } from "../domain/session.js";
import {
  boolean,
  boundedNumber,
  enumeration,
  isoTimestamp,
  jsonObject,
  metricMap,
  name,
  optional,
  serviceId,
  strictObject,
  text,
} from "./fields.js";

export const createSessionBody = strictObject({
  name: name(),
  agentName: name(),
  userId: name(),
  metadata: optional(jsonObject(LIMITS.metadataBytes)),
  /** A client-generated id (an SDK starting a run while the service is unreachable); see createSession. */
  id: optional(serviceId("session")),
  /** When the run started (normalised to UTC); checked against now and retention by the store. */
  startedAt: optional(isoTimestamp()),
  /** The conversation the run belongs to (any text of the name limits; within the caller's tenant). */
  conversationId: optional(name()),
});
export type CreateSessionBody = z.output<typeof createSessionBody>;

const tokens = () => optional(boundedNumber(0, LIMITS.maxTokens, { integer: true }));

export const updateSessionBody = strictObject({
  status: optional(enumeration(FINAL_STATUSES)),
  /** When the run ended (normalised to UTC), only with `status`; checked against the start, now and retention by the store. */
  completedAt: optional(isoTimestamp()),
  success: optional(boolean()),
  failureReason: optional(text(LIMITS.failureReasonLength)),
  estimatedCost: optional(boundedNumber(0, LIMITS.maxCostUsd)),
  durationMs: optional(boundedNumber(0, LIMITS.maxDurationMs)),
  promptTokens: tokens(),
  completionTokens: tokens(),
  totalTokens: tokens(),
  customMetrics: optional(metricMap()),
}).check(
  // `when` makes the cross-field rules run even when a field failed its own
  // check, so one response names every problem.
  z.superRefine(
    (body, context) => {
      if (Object.values(body).every((value) => value === undefined)) {
        context.addIssue({ code: "custom", path: [], message: "Send at least one field to update" });
      }
      if (body.status === "failed" && body.success === true) {
        context.addIssue({ code: "custom", path: ["success"], message: "A failed session cannot be successful" });
      }
      if (body.completedAt !== undefined && body.status === undefined) {
        context.addIssue({ code: "custom", path: ["completedAt"], message: COMPLETED_AT_WITHOUT_STATUS });
      }
    },
    { when: () => true },
  ),
);
export type UpdateSessionBody = z.output<typeof updateSessionBody>;
