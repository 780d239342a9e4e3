/**
 * Sessions and their state rules: `active` → `completed` | `failed`, and a
 * session in a final state never changes again (a repeat of the final update
 * is accepted as a no-op). Pure: no I/O, no HTTP.
 */
import type { Environment } from "./api-key.js";
import { type FieldIssue, invalidFieldsError } from "./errors.js";
import { type JsonObject, type JsonValue, jsonEqual } from "./json.js";

export const SESSION_STATUSES = ["active", "completed", "failed"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const FINAL_STATUSES = ["completed", "failed"] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];

/** What a client sends to start a session. */
export interface NewSession {
  readonly name: string;
  readonly agentName: string;
  readonly userId: string;
  readonly metadata?: JsonObject | undefined;
  /**
   * The conversation the run belongs to (issue 33): a chat agent's conversation is many runs. Any text a client
   * chooses (an OpenTelemetry conversation, session or thread id); within the caller's tenant only.
   */
  readonly conversationId?: string | undefined;
}

/**
 * What a client sends to start a session: a new session, plus what an SDK that starts runs while the service is
 * unreachable sends: its own `id` (the service's format) and when the run `startedAt` (UTC ISO).
 */
export interface SessionStart extends NewSession {
  readonly id?: string | undefined;
  readonly startedAt?: string | undefined;
}

/** What a client may send to update a session (every field optional). */
export interface SessionPatch {
  readonly status?: FinalStatus | undefined;
  /**
   * When the run ended (UTC ISO), for an end delivered after it happened; only with a final `status`. Unsent: the
   * service's clock when the final update arrives.
   */
  readonly completedAt?: string | undefined;
  readonly success?: boolean | undefined;
  readonly failureReason?: string | undefined;
  readonly estimatedCost?: number | undefined;
  readonly durationMs?: number | undefined;
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly customMetrics?: Record<string, number> | undefined;
}

/** Fields a PATCH may write, in the order they are stored. */
export const PATCHABLE_FIELDS = [
  "status",
  "completedAt",
  "success",
  "failureReason",
  "estimatedCost",
  "durationMs",
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "customMetrics",
] as const satisfies readonly (keyof SessionPatch)[];

export interface Session extends NewSession, Omit<SessionPatch, "status" | "completedAt"> {
  readonly id: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly status: SessionStatus;
  /** Number of events recorded for the session. */
  readonly eventCount: number;
  /** Sum of the `estimatedCost` of the session's events, in USD. */
  readonly eventCost: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastActivityAt: string;
  readonly completedAt?: string | undefined;
  /** Sums of the counted events' usage per token type, model calls and unpriced ones (domain/session-totals.ts). */
  readonly eventPromptTokens?: number | undefined;
  readonly eventCompletionTokens?: number | undefined;
  readonly eventTotalTokens?: number | undefined;
  readonly eventCacheReadTokens?: number | undefined;
  readonly eventCacheWriteTokens?: number | undefined;
  readonly eventReasoningTokens?: number | undefined;
  readonly modelCalls?: number | undefined;
  readonly unpricedCalls?: number | undefined;
  /** Per model the session's events called (at most MAX_MODELS_PER_SESSION names), as stored (rollup.ts modelUsageOf). */
  readonly modelUsage?: unknown;
  /** Calls per tool name among the session's events (at most MAX_TOOLS_PER_SESSION names). */
  readonly toolCalls: Readonly<Record<string, number>>;
  /** `error` events per tool name. */
  readonly toolErrors: Readonly<Record<string, number>>;
  /**
   * The acknowledgement time of the newest event counted into the counters above (they are counted from the
   * change stream, a moment after the events are acknowledged); unset until the first event is counted.
   */
  readonly countsAsOf?: string | undefined;
  /** Bookkeeping of the stream consumer: whether the start and the outcome are in the rollups, and how often it wrote. */
  readonly startCounted?: boolean | undefined;
  readonly outcomeCounted?: boolean | undefined;
  readonly countVersion?: number | undefined;
  /** Per stream shard, the padded sequence of the last change counted into the session (its high-water mark). */
  readonly countMarks?: Readonly<Record<string, string>> | undefined;
  /**
   * Where the session was counted before each move of its agent, user or start (oldest first), with its marks at
   * the move: a batch delivered again after a move owes the shares of the changes counted before it to the rollups
   * the session was counted under then (the move withdrew them from there).
   */
  readonly countMoves?: readonly CountMove[] | undefined;
  /** How long the session's rollups are kept (its organisation's tier when it started). */
  readonly rollupRetentionDays?: number | undefined;
  /** The per-tool counts a move has yet to carry to its new rollups, while it is under way (see ToolMove). */
  readonly toolMove?: ToolMove | undefined;
}

/** Where one side of a move counted a session: its agent, user and start day, and its rollup items' expiry. */
export interface ToolMovePlace {
  readonly agentName: string;
  readonly userId: string;
  /** UTC day, `yyyy-mm-dd`. */
  readonly day: string;
  /** Epoch seconds at which rollup items the move creates expire. */
  readonly ttl: number;
}

/**
 * The per-tool counts of a move that did not fit in the move's own transaction (functions/store/sessions/
 * session-tool-move.ts): moved from `from`'s tool rollups to `to`'s a few tools per transaction, each conditioned
 * on `id` and `done`, so each tool moves exactly once whoever finishes the move.
 */
export interface ToolMove {
  readonly id: string;
  readonly from: ToolMovePlace;
  readonly to: ToolMovePlace;
  /** The rollup dimensions the move changed (an unchanged dimension keeps its tools). */
  readonly dimensions: readonly ("AGENT" | "USER")[];
  /** What was counted of each tool at the move: `[tool name, calls, errors]` (a list: names are client text). */
  readonly tools: readonly (readonly [string, number, number])[];
  /** How many of `tools`, in order, are moved already. */
  readonly done: number;
}

/** Where a session was counted until one move, and how far counting had got on each shard then. */
export interface CountMove {
  readonly marks: Readonly<Record<string, string>>;
  readonly agentName: string;
  readonly userId: string;
  readonly createdAt: string;
}

export function isFinal(status: SessionStatus): status is FinalStatus {
  return status !== "active";
}

/** The attributes an update of an active session writes. */
export interface SessionChanges extends SessionPatch {
  readonly updatedAt: string;
  readonly lastActivityAt: string;
  readonly completedAt?: string | undefined;
}

/**
 * The numbers of a patch that are not finite (NaN, ±Infinity: `1e400` is valid JSON and parses to
 * Infinity). None can be stored: DynamoDB has no such numbers and JSON text would turn them into null.
 * Metric names are client text, so they are read as own entries only.
 */
export function nonFiniteNumbers(patch: SessionPatch): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const field of PATCHABLE_FIELDS) {
    const value: unknown = patch[field];
    if (typeof value === "number" && !Number.isFinite(value)) {
      issues.push({ path: field, message: "Must be a finite number" });
    }
  }
  for (const [name, value] of Object.entries(patch.customMetrics ?? {})) {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      issues.push({ path: `customMetrics.${name}`, message: "Must be a finite number" });
    }
  }
  return issues;
}

/** The message of a `completedAt` sent without a final `status`. */
export const COMPLETED_AT_WITHOUT_STATUS = "Only with a final status (completed or failed)";

/**
 * Plans the update of an active session. Reaching a final status stamps
 * `completedAt` (the client's, else `now`) and, unless the client said
 * otherwise, sets `success` (true for `completed`, false for `failed`).
 * `updatedAt` and `lastActivityAt` are always `now`. A number that is not
 * finite, or a `completedAt` without a status, is a 400 here, where the update
 * values are built, whoever the caller (the request schema refuses them first).
 */
export function planSessionUpdate(patch: SessionPatch, now: string): SessionChanges {
  const issues = nonFiniteNumbers(patch);
  if (patch.completedAt !== undefined && patch.status === undefined)
    issues.push({ path: "completedAt", message: COMPLETED_AT_WITHOUT_STATUS });
  if (issues.length > 0) throw invalidFieldsError("session update", issues);
  const changes: SessionChanges = { ...patch, updatedAt: now, lastActivityAt: now };
  if (patch.status === undefined) return changes;
  return {
    ...changes,
    success: patch.success ?? patch.status === "completed",
    completedAt: patch.completedAt ?? now,
  };
}

/**
 * Why a client's `completedAt` cannot end `stored`: a run does not end before it started (`createdAt`, the client's
 * `startedAt` if it sent one). The bounds against the service's clock are the store's (they need the retention).
 */
export function completedAtProblem(stored: Session, completedAt: string | undefined): string | undefined {
  if (completedAt === undefined || Date.parse(completedAt) >= Date.parse(stored.createdAt)) return undefined;
  return `Must not be before the session's createdAt (${stored.createdAt})`;
}

/**
 * Whether a start naming an existing session's id only repeats that session's start (an SDK retrying after a
 * network failure): the same name, agent and user, and — when sent — the same start time. Metadata is not compared:
 * like the creation response, the comparison covers what identifies the run. The tenant is checked by the caller.
 */
export function isRepeatOfStart(stored: Session, start: SessionStart): boolean {
  return (
    stored.name === start.name &&
    stored.agentName === start.agentName &&
    stored.userId === start.userId &&
    stored.conversationId === start.conversationId &&
    (start.startedAt === undefined || start.startedAt === stored.createdAt)
  );
}

/**
 * Whether a PATCH to a session in a final state only repeats what is stored:
 * it names the same final status and every other field it sends equals the
 * stored value (a sent `completedAt` included). Such a retry is answered with
 * the stored session.
 */
export function isRepeatOfFinalUpdate(stored: Session, patch: SessionPatch): boolean {
  if (!isFinal(stored.status) || patch.status !== stored.status) return false;
  return PATCHABLE_FIELDS.every((field) => {
    const sent = patch[field];
    return sent === undefined || jsonEqual(sent as JsonValue, stored[field] as JsonValue | undefined);
  });
}
