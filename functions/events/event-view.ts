/**
 * An event as the read API shows it: the fields it was recorded with, its tenant left out, and the fields of
 * a model call's cost and the event's duration always present — `null` when the event has none (events
 * recorded before they existed, events that are no model call, or points in time without a duration).
 */
import type { AgentEvent } from "../domain/event.js";

export function eventView({ orgId, environment, ...event }: AgentEvent) {
  return {
    ...event,
    durationMs: event.durationMs ?? null,
    model: event.model ?? null,
    usage: event.usage ?? null,
    estimatedCost: event.estimatedCost ?? null,
    costSource: event.costSource ?? null,
    priceEffectiveFrom: event.priceEffectiveFrom ?? null,
  };
}
