/**
 * Whole session lifecycles for the HTTP fuzz tests: start a session, record events, end it, record late
 * events, read it and its stats, then delete it or erase its user. Every name in a lifecycle is valid but
 * awkward (`constructor`, `__proto__`, `x#TOOL#y`, …), so the defects that only show across requests
 * (issue 11: a tool named `constructor` made ending, deleting and erasing fail; a failure reason with
 * `#TOOL#` was filed as a tool) are reached on purpose rather than by chance.
 *
 * Like ./arbitraries.ts, a plan is symbolic: the test file turns each step into a request once the
 * session id is known, and checks each response.
 */
import fc from "fast-check";
import { type JsonNode, PROTOTYPE_NAMES } from "./arbitraries.js";

/** Valid names, most of them awkward. */
const lifecycleName: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 4 },
  { arbitrary: fc.constantFrom("x#TOOL#y", "#FAIL#", "a#DAY#2026-01-01", "(other)", "#", "fuzz-agent"), weight: 2 },
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/), weight: 1 },
);

const str = (value: string): JsonNode => ({ kind: "string", value });
const num = (value: number): JsonNode => ({ kind: "number", text: String(value) });

/** An object of 0–3 entries under awkward keys (metadata, customMetrics). */
const awkwardObject = (value: fc.Arbitrary<JsonNode>): fc.Arbitrary<JsonNode> =>
  fc
    .uniqueArray(fc.tuple(lifecycleName, value), { maxLength: 3, selector: ([key]) => key })
    .map((entries): JsonNode => ({ kind: "object", entries }));

const EVENT_TYPES = ["tool_call", "llm_decision", "state_change", "error"] as const;

export interface LifecycleEvent {
  readonly eventType: (typeof EVENT_TYPES)[number];
  readonly toolName?: string | undefined;
  readonly estimatedCost?: number | undefined;
  /** Sent in a batch (with a per-event idempotency key) rather than alone. */
  readonly batched: boolean;
}

export interface LifecyclePlan {
  readonly name: string;
  readonly agentName: string;
  readonly userId: string;
  readonly metadata: JsonNode;
  readonly events: readonly LifecycleEvent[];
  readonly status: "completed" | "failed";
  readonly failureReason?: string | undefined;
  readonly customMetrics: JsonNode;
  readonly lateEvents: readonly LifecycleEvent[];
  /** How the lifecycle ends: the session deleted, its user erased, or left in place. */
  readonly finish: "delete-session" | "erase-user" | "keep";
  /** Whether request bodies are sent gzip-compressed. */
  readonly gzip: boolean;
}

const lifecycleEvent: fc.Arbitrary<LifecycleEvent> = fc.record(
  {
    eventType: fc.constantFrom(...EVENT_TYPES),
    toolName: lifecycleName,
    estimatedCost: fc.constantFrom(0, 0.5, 0.001, 2),
    batched: fc.boolean(),
  },
  { requiredKeys: ["eventType", "batched"] },
);

export const lifecyclePlan: fc.Arbitrary<LifecyclePlan> = fc.record(
  {
    name: lifecycleName,
    agentName: lifecycleName,
    userId: lifecycleName,
    metadata: awkwardObject(fc.constantFrom("x", "y").map(str)),
    events: fc.array(lifecycleEvent, { maxLength: 5 }),
    status: fc.constantFrom("completed" as const, "failed" as const),
    failureReason: lifecycleName,
    customMetrics: awkwardObject(fc.constantFrom(0, 1, 2.5, -3).map(num)),
    lateEvents: fc.array(lifecycleEvent, { maxLength: 3 }),
    finish: fc.constantFrom("delete-session" as const, "erase-user" as const, "keep" as const),
    gzip: fc.boolean(),
  },
  {
    requiredKeys: [
      "name",
      "agentName",
      "userId",
      "metadata",
      "events",
      "status",
      "customMetrics",
      "lateEvents",
      "finish",
      "gzip",
    ],
  },
);

/** The JSON body of one event of a plan. */
export function eventNode(sessionId: string, event: LifecycleEvent, idempotencyKey?: string): JsonNode {
  const entries: [string, JsonNode][] = [
    ["sessionId", str(sessionId)],
    ["eventType", str(event.eventType)],
  ];
  if (event.toolName !== undefined) entries.push(["toolName", str(event.toolName)]);
  if (event.estimatedCost !== undefined) entries.push(["estimatedCost", num(event.estimatedCost)]);
  if (idempotencyKey !== undefined) entries.push(["idempotencyKey", str(idempotencyKey)]);
  return { kind: "object", entries };
}

export function sessionNode(plan: LifecyclePlan): JsonNode {
  return {
    kind: "object",
    entries: [
      ["name", str(plan.name)],
      ["agentName", str(plan.agentName)],
      ["userId", str(plan.userId)],
      ["metadata", plan.metadata],
    ],
  };
}

export function endNode(plan: LifecyclePlan): JsonNode {
  const entries: [string, JsonNode][] = [
    ["status", str(plan.status)],
    ["success", { kind: "boolean", value: plan.status === "completed" }],
    ["customMetrics", plan.customMetrics],
    ["durationMs", num(1_500)],
  ];
  if (plan.failureReason !== undefined) entries.push(["failureReason", str(plan.failureReason)]);
  return { kind: "object", entries };
}
