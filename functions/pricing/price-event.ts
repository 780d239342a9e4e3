/**
 * The cost of one event at ingest (docs/pricing.md, "Applied at ingest"): a cost the client reported always wins;
 * else a model call (an event with a `model` or a `usage`) is priced from its model and usage on the day it
 * happened; any other event has no cost. Pure: the organisation's prices are passed in.
 */
import type { EventCost } from "../domain/event.js";
import type { PriceIndex } from "./price-lookup.js";
import { type OrganisationPrice, priceUsage } from "./price-usage.js";
import type { TokenUsage } from "./usage.js";

/** What pricing reads of an event. */
export interface PricedEventInput {
  readonly model?: string | undefined;
  readonly usage?: TokenUsage | undefined;
  readonly estimatedCost?: number | undefined;
  /** When the client says it happened; the price of that UTC day applies. */
  readonly occurredAt?: string | undefined;
}

/** Whether an event is priced from the table (or the organisation's prices): no reported cost, a model or a usage. */
export function needsPricing(event: PricedEventInput): boolean {
  return event.estimatedCost === undefined && (event.model !== undefined || event.usage !== undefined);
}

/**
 * `{ estimatedCost, costSource: "reported" }` when the event carries a cost; else, for a model call,
 * `priceUsage` at `occurredAt ?? createdAt`: `{ estimatedCost, costSource: "table" | "organisation",
 * priceEffectiveFrom }`, or `{ costSource: "unpriced" }` (no `estimatedCost`); else `{}`.
 */
export function priceEvent(
  event: PricedEventInput,
  createdAt: string,
  organisationPrices?: readonly OrganisationPrice[] | PriceIndex<OrganisationPrice>,
): EventCost {
  if (event.estimatedCost !== undefined) return { estimatedCost: event.estimatedCost, costSource: "reported" };
  if (!needsPricing(event)) return {};
  const priced = priceUsage({
    model: event.model,
    usage: event.usage ?? {},
    at: event.occurredAt ?? createdAt,
    organisationPrices,
  });
  if (priced.cost === null) return { costSource: "unpriced" };
  return { estimatedCost: priced.cost, costSource: priced.costSource, priceEffectiveFrom: priced.priceEffectiveFrom };
}
