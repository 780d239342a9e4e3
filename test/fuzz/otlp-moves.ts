/**
 * OpenTelemetry session moves for the HTTP fuzz tests (issue 30): a trace's children, naming many tools (up to
 * 50 names, past the session's cap of 20 per counter, awkward ones included), exported before the root that
 * names the agent and the user — a move that needs more than one transaction —, or before a root dated far out
 * of bounds (1970, 2500, just past retention, 6 minutes ahead), which must not move the session's start. A
 * second trace may share the root's export. Like ./lifecycle.ts, a plan is symbolic: the test file turns it into
 * OTLP JSON exports and checks each answer, then that every count equals a recount.
 */
import fc from "fast-check";
import { PROTOTYPE_NAMES } from "./arbitraries.js";

/** Where a plan's root span starts. */
export type RootTime = "in bounds" | "1970" | "2500" | "past retention" | "6 minutes ahead";

export interface OtlpMovePlan {
  /** Tools called once each (unique names). */
  readonly succeeding: readonly string[];
  /** Tools called once each and failing (unique names; may repeat a succeeding one). */
  readonly failing: readonly string[];
  /** The children in one export, or the succeeding and the failing ones in two. */
  readonly childExports: 1 | 2;
  readonly rootTime: RootTime;
  /** Valid but awkward names of the root's agent and user (the plan's unique prefix is added). */
  readonly agentName: string;
  readonly userId: string;
  /** A second, new trace in the root's export. */
  readonly withOther: boolean;
}

const toolName: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 2 },
  { arbitrary: fc.constantFrom("(other)", "x#TOOL#y", "~tilde", "~~", "#", "a b", "ünï"), weight: 2 },
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/), weight: 6 },
);

const awkwardName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES, "x#USER#y", "(other)"),
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,9}$/),
);

export const otlpMovePlan: fc.Arbitrary<OtlpMovePlan> = fc.record({
  succeeding: fc.uniqueArray(toolName, { minLength: 0, maxLength: 30 }),
  failing: fc.uniqueArray(toolName, { minLength: 0, maxLength: 25 }),
  childExports: fc.constantFrom(1 as const, 2 as const),
  rootTime: fc.oneof(
    { arbitrary: fc.constant("in bounds" as const), weight: 3 },
    { arbitrary: fc.constantFrom("1970" as const, "2500" as const, "past retention" as const), weight: 2 },
    { arbitrary: fc.constant("6 minutes ahead" as const), weight: 1 },
  ),
  agentName: awkwardName,
  userId: awkwardName,
  withOther: fc.boolean(),
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** The root's start and end (Unix ms) for a plan run at `nowMs` by an organisation keeping `retentionDays`. */
export function rootTimes(time: RootTime, nowMs: number, retentionDays: number): { startMs: number; endMs: number } {
  switch (time) {
    case "in bounds":
      return { startMs: nowMs - 10 * 60_000, endMs: nowMs - 60_000 };
    case "1970":
      return { startMs: Date.UTC(1970, 0, 2), endMs: nowMs - 60_000 };
    case "2500":
      return { startMs: Date.UTC(2500, 0, 1), endMs: Date.UTC(2500, 0, 1, 0, 1) };
    case "past retention":
      return { startMs: nowMs - retentionDays * DAY_MS - 60 * 60_000, endMs: nowMs - 60_000 };
    case "6 minutes ahead":
      return { startMs: nowMs + 6 * 60_000, endMs: nowMs + 7 * 60_000 };
  }
}
