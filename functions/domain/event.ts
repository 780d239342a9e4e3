/** Events recorded against a session. Events have no states. Pure types. */
import type { Environment } from "./api-key.js";
import type { JsonObject } from "./json.js";

export const EVENT_TYPES = ["tool_call", "llm_decision", "state_change", "error"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a client sends to record an event. */
export interface NewEvent {
  readonly sessionId: string;
  readonly eventType: EventType;
  readonly toolName?: string | undefined;
  readonly toolInput?: JsonObject | undefined;
  readonly toolOutput?: JsonObject | undefined;
  readonly reasoning?: string | undefined;
  readonly alternativesConsidered?: readonly string[] | undefined;
  readonly confidence?: number | undefined;
  readonly estimatedCost?: number | undefined;
}

export interface AgentEvent extends NewEvent {
  readonly id: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly createdAt: string;
}
