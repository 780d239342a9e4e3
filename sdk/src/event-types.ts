/** The shapes a run records, as the agent passes them and as they go on the wire. */
import type { JsonObject } from "./json-value.js";
import type { EventUsage } from "./usage.js";

export type EventType = "tool_call" | "llm_decision" | "state_change" | "error";

/**
 * One event as it leaves the process (what `mask` receives and returns): the
 * service's event fields, with `occurredAt` set by the client when the call was
 * made.
 */
export interface TrackedEvent {
  readonly sessionId: string;
  readonly eventType: EventType;
  toolName?: string;
  toolInput?: JsonObject;
  toolOutput?: JsonObject;
  reasoning?: string;
  alternativesConsidered?: string[];
  confidence?: number;
  /**
   * A cost the client knows (your own price, sent as is). Without one, an
   * event with `model` or `usage` is priced by the service from its table.
   */
  estimatedCost?: number;
  /** The model the provider answered with (1–256 characters). */
  model?: string;
  /** The call's token usage (non-negative integers). */
  usage?: EventUsage;
  /** ISO 8601 UTC: when the agent made the call (its start, for a timed call; delivery may be later). */
  occurredAt: string;
  /** How long the call took, in whole milliseconds from `occurredAt`; absent for a point in time. */
  durationMs?: number;
}

/** Fields every event method accepts. */
export interface CommonEventFields {
  /**
   * When it happened, or started (default: now). Set it when replaying or importing past runs, or when the
   * event lasted (`durationMs`); the service takes up to 5 minutes ahead.
   */
  occurredAt?: Date | string;
  /**
   * How long it took, in milliseconds from `occurredAt` (so set `occurredAt` to the start): rounded to a whole
   * number; a negative, non-finite or over-a-year value is left out. The console draws the event as a bar.
   * `wrapTool` and `wrapOpenAI` set both for you.
   */
  durationMs?: number;
  /**
   * The model the provider answered with. Trimmed; a name that is empty or
   * longer than 256 characters is left out.
   */
  model?: string;
  /**
   * Token usage (OpenAI's convention: cache reads and writes are parts of
   * `promptTokens`, reasoning a part of `completionTokens`). A count that is not
   * a non-negative integer up to 10^12, and any other key, is left out. The
   * counts add to the run's totals, sent with the session's end.
   */
  usage?: EventUsage;
}

/** `run.toolCall(…)`: inputs and outputs may be any value; non-objects are kept as `{ value }`. */
export interface ToolCallFields extends CommonEventFields {
  toolName: string;
  toolInput?: unknown;
  toolOutput?: unknown;
  reasoning?: string;
  estimatedCost?: number;
}

/** `run.decision(…)`: a decision point of the agent. */
export interface DecisionFields extends CommonEventFields {
  reasoning?: string;
  alternativesConsidered?: string[];
  /** 0.0 – 1.0. */
  confidence?: number;
  estimatedCost?: number;
}

/** `run.stateChange(…)`: `from`, `to` and `details` are recorded as the event's `toolInput`. */
export interface StateChangeFields extends CommonEventFields {
  from?: string;
  to?: string;
  details?: Record<string, unknown>;
  reasoning?: string;
  estimatedCost?: number;
}

/** `run.error(…)` with fields instead of an `Error`. */
export interface ErrorFields extends CommonEventFields {
  message: string;
  /** The tool that failed, counted in the session's tool errors. */
  toolName?: string;
  details?: Record<string, unknown>;
  estimatedCost?: number;
}

/**
 * `run.llmCall(…)`: one call to a language model (what `wrapOpenAI` records for
 * you). The token counts may be given flat (`promptTokens`…) or as `usage`
 * (which wins for a count given both ways).
 */
export interface LlmCallFields extends CommonEventFields {
  model: string;
  /** A summary of the prompt and answer; recorded as `reasoning`. */
  reasoning?: string;
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  /** Your own cost of the call; without it the service prices the call from `model` and `usage`. */
  estimatedCost?: number;
  /** More about the request (recorded in `toolInput` beside `model`). */
  request?: Record<string, unknown>;
  /** More about the answer (recorded in `toolOutput` beside the usage). */
  response?: Record<string, unknown>;
}

/** `run.end(…)`: every field optional; duration, tokens and cost are filled in when not given. */
export interface EndFields {
  /** Defaults to `failed` when `success` is false or `failureReason` is set, else `completed`. */
  status?: "completed" | "failed";
  success?: boolean;
  failureReason?: string;
  /**
   * Defaults to the sum of the run's events' `estimatedCost` — unless an event
   * was left for the service to price (it had `model` or `usage` and no
   * `estimatedCost`): then none is sent, and the session's `eventCost` (the
   * service's sum) holds the cost.
   */
  estimatedCost?: number;
  /** Defaults to the time since `startSession`. */
  durationMs?: number;
  /** When the run ended (defaults to the time of the `end` call, so a late delivery keeps the true time). */
  completedAt?: Date | string;
  /** Token counts default to the totals of the run's events' usage, when any had some. */
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  customMetrics?: Record<string, number>;
}

/** `ats.startSession(…)` / `ats.trace(…)`. */
export interface SessionFields {
  name: string;
  agentName: string;
  userId: string;
  metadata?: Record<string, unknown>;
  /** When the run started (defaults to now); lets a replay or an import place runs in the past. */
  startedAt?: Date | string;
}
