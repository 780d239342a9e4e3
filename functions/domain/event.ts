/** Events recorded against a session. Events have no states. Pure types. */
import type { TokenUsage } from "../pricing/usage.js";
import type { Environment } from "./api-key.js";
import type { JsonObject } from "./json.js";

export const EVENT_TYPES = ["tool_call", "llm_decision", "state_change", "error"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a client sends to record an event. */
export interface NewEvent {
  /** The client's own id (`evt_` + ULID): retries of the event name the same item. */
  readonly id?: string | undefined;
  readonly sessionId: string;
  readonly eventType: EventType;
  readonly toolName?: string | undefined;
  readonly toolInput?: JsonObject | undefined;
  readonly toolOutput?: JsonObject | undefined;
  readonly reasoning?: string | undefined;
  readonly alternativesConsidered?: readonly string[] | undefined;
  readonly confidence?: number | undefined;
  readonly estimatedCost?: number | undefined;
  /** When the client says it happened (UTC ISO); `createdAt` stays the service's. */
  readonly occurredAt?: string | undefined;
  /**
   * How long the call or step took, in whole milliseconds (0 to `LIMITS.maxDurationMs`): the event spans
   * `occurredAt` (its start, else its id's time) to `occurredAt + durationMs`. Absent: a point in time.
   */
  readonly durationMs?: number | undefined;
  /** The model the provider answered with (a model call's), trimmed. */
  readonly model?: string | undefined;
  /** The model call's token usage (functions/pricing/usage.ts: cached tokens inside prompt, reasoning inside completion). */
  readonly usage?: TokenUsage | undefined;
}

/**
 * Where an event's `estimatedCost` comes from: the client (`reported`), the shipped price table (`table`), the
 * organisation's own prices (`organisation`), or nowhere — a model call that could not be priced (`unpriced`).
 */
export const COST_SOURCES = ["reported", "table", "organisation", "unpriced"] as const;
export type CostSource = (typeof COST_SOURCES)[number];

/** What the service adds to an event at ingest when it prices it (functions/pricing/price-event.ts). */
export interface EventCost {
  readonly estimatedCost?: number | undefined;
  readonly costSource?: CostSource | undefined;
  /** The `effectiveFrom` (YYYY-MM-DD) of the price applied (`table` and `organisation` only). */
  readonly priceEffectiveFrom?: string | undefined;
}

export interface AgentEvent extends NewEvent, EventCost {
  readonly id: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly createdAt: string;
}

/**
 * A client's `occurredAt` must lie within the retention window and at most
 * `futureMs` ahead of the service's clock; the message says which bound failed.
 */
export function occurredAtProblem(
  occurredAt: string,
  nowMs: number,
  retentionDays: number,
  futureMs: number,
): string | undefined {
  const at = Date.parse(occurredAt);
  if (at > nowMs + futureMs) return `Must be at most ${futureMs / 60_000} minutes in the future`;
  if (at < nowMs - retentionDays * 24 * 60 * 60 * 1000)
    return `Must not be older than the retention window (${retentionDays} days)`;
  return undefined;
}
