/** The shapes a run records, as the agent passes them and as they go on the wire. */
import type { JsonObject } from "./json-value.js";

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
  estimatedCost?: number;
  /** ISO 8601 UTC: when the agent made the call (delivery may be later). */
  occurredAt: string;
}

/** Fields every event method accepts. */
export interface CommonEventFields {
  /** When it happened (default: now). Set it when replaying or importing past runs; the service takes up to 5 minutes ahead. */
  occurredAt?: Date | string;
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

/** `run.llmCall(…)`: one call to a language model (what `wrapOpenAI` records for you). */
export interface LlmCallFields extends CommonEventFields {
  model: string;
  /** A summary of the prompt and answer; recorded as `reasoning`. */
  reasoning?: string;
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  estimatedCost?: number;
  durationMs?: number;
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
  /** Defaults to the sum of the run's events' `estimatedCost`. */
  estimatedCost?: number;
  /** Defaults to the time since `startSession`. */
  durationMs?: number;
  /** When the run ended (defaults to the time of the `end` call, so a late delivery keeps the true time). */
  completedAt?: Date | string;
  /** Token counts default to the totals of the run's LLM calls, when it made any. */
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
