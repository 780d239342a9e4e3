/** The per-container caches of one value per organisation (runtime/organisation-cache.ts): prices (served stale while the store fails) and score configurations (refused). */
import { describe, expect, it } from "vitest";
import { createOrganisationPriceCache } from "../../functions/pricing/organisation-prices.js";
import type { OrganisationPrice } from "../../functions/pricing/price-usage.js";
import { createOrganisationCache } from "../../functions/runtime/organisation-cache.js";

const price = (model: string, input = 1): OrganisationPrice => ({
  model,
  effectiveFrom: "2026-01-01",
  input,
  output: 2,
});

/** A loader that counts its reads per organisation and answers what `prices` holds then. */
function countingLoader(prices: Map<string, readonly OrganisationPrice[]>) {
  const reads: string[] = [];
  return {
    reads,
    load: async (orgId: string) => {
      reads.push(orgId);
      return prices.get(orgId) ?? [];
    },
  };
}

describe("createOrganisationPriceCache", () => {
  it("reads an organisation once per expiry, then again", async () => {
    const prices = new Map([["acme", [price("a")]]]);
    const loader = countingLoader(prices);
    let now = 1_000;
    const cache = createOrganisationPriceCache({ load: loader.load, now: () => now, ttlMs: 60_000 });

    expect(await cache.get("acme")).toEqual([price("a")]);
    prices.set("acme", [price("a", 5)]);
    now += 59_999;
    expect(await cache.get("acme")).toEqual([price("a")]);
    now += 1;
    expect(await cache.get("acme")).toEqual([price("a", 5)]);
    expect(loader.reads).toEqual(["acme", "acme"]);
  });

  it("shares one read between concurrent requests and keeps organisations apart", async () => {
    const loader = countingLoader(
      new Map([
        ["acme", [price("a")]],
        ["globex", [price("g")]],
      ]),
    );
    const cache = createOrganisationPriceCache({ load: loader.load, now: () => 0 });

    const [first, second, other] = await Promise.all([cache.get("acme"), cache.get("acme"), cache.get("globex")]);

    expect(first).toEqual([price("a")]);
    expect(second).toBe(first);
    expect(other).toEqual([price("g")]);
    expect(loader.reads).toEqual(["acme", "globex"]);
  });

  it("holds at most maxOrganisations, dropping the least recently loaded", async () => {
    const loader = countingLoader(new Map());
    const cache = createOrganisationPriceCache({ load: loader.load, now: () => 0, maxOrganisations: 2 });

    await cache.get("a");
    await cache.get("b");
    await cache.get("c");
    await cache.get("b");
    await cache.get("a");

    expect(cache.size).toBe(2);
    expect(loader.reads).toEqual(["a", "b", "c", "a"]);
  });

  it("does not cache a failed read, and serves expired prices while the store fails", async () => {
    let failing = true;
    let now = 0;
    const cache = createOrganisationPriceCache({
      load: async () => {
        if (failing) throw new Error("throttled");
        return [price("a")];
      },
      now: () => now,
      ttlMs: 10,
    });

    await expect(cache.get("acme")).rejects.toThrow("throttled");
    expect(cache.size).toBe(0);
    failing = false;
    expect(await cache.get("acme")).toEqual([price("a")]);
    failing = true;
    now = 100;
    expect(await cache.get("acme")).toEqual([price("a")]);
  });

  it("forgets one organisation on demand", async () => {
    const loader = countingLoader(new Map());
    const cache = createOrganisationPriceCache({ load: loader.load, now: () => 0 });

    await cache.get("acme");
    cache.forget("acme");
    await cache.get("acme");

    expect(loader.reads).toEqual(["acme", "acme"]);
  });
});

describe("createOrganisationCache, failing closed", () => {
  it("refuses while the store fails, even with an expired value held (score configurations)", async () => {
    let failing = false;
    let now = 0;
    const cache = createOrganisationCache({
      load: async (orgId: string) => {
        if (failing) throw new Error("throttled");
        return `${orgId}'s configurations`;
      },
      ttlMs: 10,
      maxOrganisations: 10,
      onFailure: "fail",
      now: () => now,
    });

    expect(await cache.get("acme")).toBe("acme's configurations");
    failing = true;
    expect(await cache.get("acme")).toBe("acme's configurations");
    now = 100;
    await expect(cache.get("acme")).rejects.toThrow("throttled");
    expect(cache.size).toBe(0);
    failing = false;
    expect(await cache.get("acme")).toBe("acme's configurations");
  });
});
