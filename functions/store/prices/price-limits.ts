/**
 * Bounds of an organisation's own model prices (docs/pricing.md "Organisation prices"): what one
 * organisation may store and what one price may say. Pure data, read by the schemas and the store; the console repeats
 * the bounds its form checks (web/src/pages/prices/price-logic.ts).
 */
export const ORGANISATION_PRICE_LIMITS = {
  /** Dated prices one organisation may hold in all (every model, every `effectiveFrom`): 409 past it. */
  pricesPerOrganisation: 500,
  /** Dated prices of one model (its price over time): 409 past it. */
  pricesPerModel: 20,
  /** A model name: 1 to 256 characters (after trimming and lower-casing), at most 768 bytes of UTF-8. */
  modelLength: 256,
  modelBytes: 768,
  /** Highest rate, in USD per million tokens (the table's dearest is in the hundreds). */
  maxRate: 10_000,
  /** Long-prompt tiers of one price. */
  tiers: 4,
  /** Highest `above` of a tier, in prompt tokens. */
  maxTierAbove: 100_000_000,
  /** Audit records one read of the price audit returns (the newest). */
  auditPage: 100,
} as const;

/**
 * The per-container cache of organisations' prices for pricing at ingest (pricing/organisation-prices.ts): how stale
 * a change may be where it is applied.
 */
export const ORGANISATION_PRICE_CACHE = {
  /** How long a container prices with the prices it read: the staleness of a change. */
  ttlMs: 60_000,
  /** Organisations cached per container at most. */
  maxOrganisations: 1_000,
} as const;
