/**
 * An organisation's own prices for pricing at ingest, cached per container (module scope) so that the hot path
 * does no DynamoDB read per event: at most one Query per organisation per ORGANISATION_PRICE_CACHE.ttlMs
 * (store/prices/price-limits.ts),
 * whatever the traffic. The staleness is the price of that: a price set or deleted in the console applies to
 * events received up to `ttlMs` later by a container that had read the organisation's prices before
 * (docs/pricing.md "Organisation prices").
 *
 * The cache is bounded (`maxOrganisations`; the least recently loaded organisation goes first) and so is each
 * entry (an organisation holds at most ORGANISATION_PRICE_LIMITS.pricesPerOrganisation prices). Concurrent
 * requests of one organisation share one read; a failed read is not cached, and while the store cannot be read an
 * expired entry keeps serving (pricing with last minute's prices beats refusing events).
 */
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

export interface OrganisationPriceCache {
  /** The organisation's prices, read at most once per `ttlMs`. */
  get(orgId: string): Promise<readonly OrganisationPrice[]>;
  /** Forgets one organisation's prices: the next `get` reads them again. */
  forget(orgId: string): void;
  /** Forgets everything. */
  clear(): void;
  /** Organisations held. */
  readonly size: number;
}

interface Entry {
  /** The last prices read, once a read succeeded. */
  prices: readonly OrganisationPrice[] | undefined;
  /** When `prices` stop being fresh. */
  expiresAt: number;
  /** The read under way, shared by the requests that wait for it. */
  loading: Promise<readonly OrganisationPrice[]> | undefined;
}

/** A per-container cache of organisations' prices (the module's own is behind {@link loadOrganisationPrices}). */
export function createOrganisationPriceCache(options: OrganisationPriceCacheOptions): OrganisationPriceCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? ORGANISATION_PRICE_CACHE.ttlMs;
  const maxOrganisations = options.maxOrganisations ?? ORGANISATION_PRICE_CACHE.maxOrganisations;
  const entries = new Map<string, Entry>();

  function remember(orgId: string, entry: Entry): void {
    // Map order is insertion order: re-inserting keeps the most recently loaded last, the eviction takes the first.
    entries.delete(orgId);
    entries.set(orgId, entry);
    while (entries.size > maxOrganisations) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
    }
  }

  function load(orgId: string, entry: Entry): Promise<readonly OrganisationPrice[]> {
    const loading = options.load(orgId).then(
      (prices) => {
        entry.prices = prices;
        entry.expiresAt = now() + ttlMs;
        entry.loading = undefined;
        return prices;
      },
      (error: unknown) => {
        entry.loading = undefined;
        if (entry.prices !== undefined) return entry.prices;
        if (entries.get(orgId) === entry) entries.delete(orgId);
        throw error;
      },
    );
    entry.loading = loading;
    return loading;
  }

  return {
    get(orgId) {
      const entry = entries.get(orgId);
      if (entry !== undefined) {
        if (entry.prices !== undefined && now() < entry.expiresAt) return Promise.resolve(entry.prices);
        if (entry.loading !== undefined) return entry.loading;
        remember(orgId, entry);
        return load(orgId, entry);
      }
      const fresh: Entry = { prices: undefined, expiresAt: 0, loading: undefined };
      remember(orgId, fresh);
      return load(orgId, fresh);
    },
    forget(orgId) {
      entries.delete(orgId);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
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
