/** How an event is named on screen: its type's label and icon, and a title naming its tool or model. */
import type { EventType, SessionEvent } from "../api/types";
import { modelUsage } from "../lib/timeline";

export const EVENT_TYPE_LABELS: Record<EventType, { label: string; icon: string }> = {
  tool_call: { label: "Tool call", icon: "⚙" },
  llm_decision: { label: "Decision", icon: "◆" },
  state_change: { label: "State change", icon: "↻" },
  error: { label: "Error", icon: "!" },
};

/** An `llm_decision` that records a call to a model (a model name or token counts) reads "Model call". */
export function typeLabel(event: SessionEvent): string {
  return event.eventType === "llm_decision" && modelUsage(event) !== undefined
    ? "Model call"
    : EVENT_TYPE_LABELS[event.eventType].label;
}

/** "Tool call: lookup_order", "Model call: gpt-4o", "State change: triage → refund", "Decision". */
export function eventTitle(event: SessionEvent): string {
  const label = typeLabel(event);
  if (event.toolName !== undefined) return `${label}: ${event.toolName}`;
  const model = modelUsage(event)?.model;
  if (model !== undefined) return `${label}: ${model}`;
  if (event.eventType === "state_change") {
    const from = event.toolInput?.from;
    const to = event.toolInput?.to;
    if (typeof from === "string" && typeof to === "string") return `${label}: ${from} → ${to}`;
    if (typeof to === "string") return `${label}: → ${to}`;
  }
  return label;
}

/** The id of an event's card, for links from the waterfall. */
export function eventAnchor(event: Pick<SessionEvent, "id">): string {
  return `event-${event.id}`;
}
