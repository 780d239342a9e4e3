/**
 * A per-container (module scope) cache of one thing per organisation that the hot path needs and rarely changes
 * (its own prices, its score configurations): at most one read per organisation per `ttlMs`, whatever the traffic;
 * concurrent requests of one organisation share one read; bounded (`maxOrganisations`, the least recently loaded
 * goes first). A failed read is never cached. When the store cannot be read and an expired value is held,
 * `onFailure` decides: `"serve-stale"` answers it (pricing with last minute's prices beats refusing events),
 * `"fail"` refuses (a score that may break a configuration is not stored).
 */

export interface OrganisationCacheOptions<T> {
  readonly load: (orgId: string) => Promise<T>;
  readonly ttlMs: number;
  readonly maxOrganisations: number;
  readonly onFailure: "serve-stale" | "fail";
  /** Milliseconds since the epoch (injected by tests). */
  readonly now?: () => number;
}

export interface OrganisationCache<T> {
  /** The organisation's value, read at most once per `ttlMs`. */
  get(orgId: string): Promise<T>;
  /** Forgets one organisation: the next `get` reads it again (after a change made in this container). */
  forget(orgId: string): void;
  /** Forgets everything. */
  clear(): void;
  /** Organisations held. */
  readonly size: number;
}

interface Entry<T> {
  /** The last value read, once a read succeeded. */
  value: { readonly current: T } | undefined;
  /** When `value` stops being fresh. */
  expiresAt: number;
  /** The read under way, shared by the requests that wait for it. */
  loading: Promise<T> | undefined;
}

export function createOrganisationCache<T>(options: OrganisationCacheOptions<T>): OrganisationCache<T> {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry<T>>();

  function remember(orgId: string, entry: Entry<T>): void {
    // Map order is insertion order: re-inserting keeps the most recently loaded last, the eviction takes the first.
    entries.delete(orgId);
    entries.set(orgId, entry);
    while (entries.size > options.maxOrganisations) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
    }
  }

  function load(orgId: string, entry: Entry<T>): Promise<T> {
    const loading = options.load(orgId).then(
      (value) => {
        entry.value = { current: value };
        entry.expiresAt = now() + options.ttlMs;
        entry.loading = undefined;
        return value;
      },
      (error: unknown) => {
        entry.loading = undefined;
        if (entry.value !== undefined && options.onFailure === "serve-stale") return entry.value.current;
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
        if (entry.value !== undefined && now() < entry.expiresAt) return Promise.resolve(entry.value.current);
        if (entry.loading !== undefined) return entry.loading;
        remember(orgId, entry);
        return load(orgId, entry);
      }
      const fresh: Entry<T> = { value: undefined, expiresAt: 0, loading: undefined };
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
