/**
 * An organisation's own prices for pricing at ingest, cached per container (module scope) so that the hot path
 * does no DynamoDB read per event: at most one Query per organisation per ORGANISATION_PRICE_CACHE.ttlMs
 * (store/prices/price-limits.ts),
 * whatever the traffic. The staleness is the price of that: a price set or deleted in the console applies to
 * events received up to `ttlMs` later by a container that had read the organisation's prices before
 * (docs/pricing.md "Organisation prices").
 *
 * The cache (runtime/organisation-cache.ts) is bounded (`maxOrganisations`; the least recently loaded organisation
 * goes first) and so is each entry (an organisation holds at most ORGANISATION_PRICE_LIMITS.pricesPerOrganisation
 * prices). Concurrent requests of one organisation share one read; a failed read is not cached, and while the store
 * cannot be read an expired entry keeps serving (pricing with last minute's prices beats refusing events).
 */

import { createOrganisationCache, type OrganisationCache } from "../runtime/organisation-cache.js";
import { asOrganisationPrice, listOrganisationPrices } from "../store/prices/organisation-price-store.js";
import { ORGANISATION_PRICE_CACHE } from "../store/prices/price-limits.js";
import { buildPriceIndex, type PriceIndex } from "./price-lookup.js";
import type { OrganisationPrice } from "./price-usage.js";

export type OrganisationPriceLoader = (orgId: string) => Promise<readonly OrganisationPrice[]>;

export interface OrganisationPriceCacheOptions {
  readonly load: OrganisationPriceLoader;
  /** Milliseconds since the epoch (injected by tests). */
  readonly now?: () => number;
  readonly ttlMs?: number;
  readonly maxOrganisations?: number;
}

/** A per-container cache of organisations' prices (the module's own is behind {@link loadOrganisationPrices}). */
export function createOrganisationPriceCache(
  options: OrganisationPriceCacheOptions,
): OrganisationCache<readonly OrganisationPrice[]> {
  return createOrganisationCache({
    load: options.load,
    ttlMs: options.ttlMs ?? ORGANISATION_PRICE_CACHE.ttlMs,
    maxOrganisations: options.maxOrganisations ?? ORGANISATION_PRICE_CACHE.maxOrganisations,
    onFailure: "serve-stale",
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

const cache = createOrganisationPriceCache({
  load: async (orgId) => (await listOrganisationPrices(orgId, { consistent: false })).map(asOrganisationPrice),
});

/** Each cached list's index, built once per read (the list is the cache entry's until it is read again). */
const indexes = new WeakMap<readonly OrganisationPrice[], PriceIndex<OrganisationPrice>>();

/**
 * The organisation's own prices for `priceUsage` (price-usage.ts), indexed, read from the store at most once per
 * ORGANISATION_PRICE_CACHE.ttlMs per container: call it once per ingest request. The index is built once per read,
 * not per request (for an organisation at its 500 prices, building it took ~0.25 ms: bench/phases/pricing-cost.ts).
 */
export async function loadOrganisationPrices(orgId: string): Promise<PriceIndex<OrganisationPrice>> {
  const prices = await cache.get(orgId);
  let index = indexes.get(prices);
  if (index === undefined) {
    index = buildPriceIndex(prices);
    indexes.set(prices, index);
  }
  return index;
}

/**
 * Forgets an organisation's prices in this container, after a change made here: on the local server (one process
 * for every route) ingest sees the change at once; on AWS the routes are separate functions and other containers
 * see it within the expiry.
 */
export function forgetOrganisationPrices(orgId: string): void {
  cache.forget(orgId);
}
