/**
 * An event as the read API shows it: the fields it was recorded with, its tenant left out, and the fields of
 * a model call's cost always present — `null` when the event has none (events recorded before they existed,
 * or that are no model call).
 */
import type { AgentEvent } from "../domain/event.js";

export function eventView({ orgId, environment, ...event }: AgentEvent) {
  return {
    ...event,
    model: event.model ?? null,
    usage: event.usage ?? null,
    estimatedCost: event.estimatedCost ?? null,
    costSource: event.costSource ?? null,
    priceEffectiveFrom: event.priceEffectiveFrom ?? null,
  };
}
