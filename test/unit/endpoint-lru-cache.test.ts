/** The Map-based LRU the Lambda bundles alias `mnemonist/lru-cache` to (functions/runtime/endpoint-lru-cache.ts). */

import { EndpointCache } from "@aws-sdk/endpoint-cache";
import { describe, expect, it } from "vitest";
import LRUCache from "../../functions/runtime/endpoint-lru-cache.js";

describe("endpoint LRU cache", () => {
  it("drops the least recently used entry past its capacity; a get makes an entry recent, a peek does not", () => {
    const cache = new LRUCache<string, number>(2);
    cache.set("a", 1).set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
    expect(cache.peek("a")).toBe(1);
    cache.set("d", 4);
    expect([cache.has("a"), cache.has("c"), cache.has("d")]).toEqual([false, true, true]);
    cache.set("c", 30);
    expect([cache.size, cache.get("c")]).toEqual([2, 30]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new LRUCache(0)).toThrow(/capacity/);
    expect(() => new LRUCache(1.5)).toThrow(/capacity/);
  });

  it("answers as mnemonist's does under the SDK's EndpointCache: set, get, recency, delete, clear", () => {
    // The same calls on the SDK's class over mnemonist (unbundled here) and over this cache give the same answers.
    const reference = new EndpointCache(2);
    const ours = new EndpointCache(2);
    (ours as unknown as { cache: unknown }).cache = new LRUCache(2);
    const script = (cache: EndpointCache) => {
      const answers: unknown[] = [];
      cache.set("k1", [{ Address: "one.example", CachePeriodInMinutes: 1 }]);
      cache.set("k2", [{ Address: "two.example", CachePeriodInMinutes: 1 }]);
      answers.push(cache.getEndpoint("k1"));
      cache.set("k3", [{ Address: "three.example", CachePeriodInMinutes: 1 }]);
      answers.push(cache.has("k1"), cache.has("k2"), cache.has("k3"), cache.getEndpoint("k2"));
      cache.delete("k3");
      answers.push(cache.has("k3"), cache.getEndpoint("k3"));
      cache.set("k4", [{ Address: "four.example", CachePeriodInMinutes: 0 }]);
      answers.push(cache.get("k4"));
      cache.clear();
      answers.push(cache.has("k1"));
      return answers;
    };
    expect(script(ours)).toEqual(script(reference));
    expect(script(ours)).toEqual(["one.example", true, false, true, undefined, false, undefined, undefined, false]);
  });
});
