/**
 * The least-recently-used cache of the DynamoDB client's endpoint discovery, in the Lambda bundles: esbuild aliases
 * `mnemonist/lru-cache` to this module (lib/constructs/api-function.ts). The SDK's `@aws-sdk/endpoint-cache` is
 * its only user (`get`, `set`, `has`, `peek`, `clear`); mnemonist's typed-array implementation and the iterator
 * library under it are about 8 KB of every bundle for a cache that endpoint discovery (off unless enabled) leaves
 * empty. A Map keeps insertion order, which is recency order when an entry read is moved to the end.
 */
export default class LRUCache<K, V> {
  readonly #capacity: number;
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new Error("LRUCache: capacity must be a positive integer");
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value, its recency unchanged. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Stores the value as the most recently used, dropping the least recently used entry past the capacity. */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    return this;
  }

  clear(): void {
    this.#entries.clear();
  }
}
