/**
 * The organisation's score configurations where scores are written, cached per container (module scope): at most
 * one Query per organisation per CACHE_TTL_MS, whatever the traffic. A configuration set or deleted applies to
 * scores written up to that long after by a container that read the configurations before (docs/api.md). Bounded:
 * at most MAX_ORGANISATIONS organisations (the least recently loaded goes first), each at most 100 configurations.
 * A failed read is not cached and fails the write (a score that may break its configuration is not stored).
 */
import type { ScoreConfig } from "../../domain/score-config.js";
import { listScoreConfigs } from "./score-config-store.js";

const CACHE_TTL_MS = 60_000;
const MAX_ORGANISATIONS = 1_000;

interface Entry {
  readonly expiresAt: number;
  readonly configs: Promise<ReadonlyMap<string, ScoreConfig>>;
}

const entries = new Map<string, Entry>();

/** The organisation's configurations by score name (read at most once per CACHE_TTL_MS per container). */
export function scoreConfigsOf(orgId: string, nowMs = Date.now()): Promise<ReadonlyMap<string, ScoreConfig>> {
  const cached = entries.get(orgId);
  if (cached !== undefined && cached.expiresAt > nowMs) return cached.configs;
  const configs = listScoreConfigs(orgId).then((list) => new Map(list.map((config) => [config.name, config])));
  const entry = { expiresAt: nowMs + CACHE_TTL_MS, configs };
  // Insertion order is load order: re-inserting keeps the newest last, the eviction takes the first.
  entries.delete(orgId);
  entries.set(orgId, entry);
  while (entries.size > MAX_ORGANISATIONS) {
    const oldest = entries.keys().next();
    if (oldest.done === true) break;
    entries.delete(oldest.value);
  }
  configs.catch(() => {
    if (entries.get(orgId) === entry) entries.delete(orgId);
  });
  return configs;
}

/** Forgets one organisation's configurations in this container (after a change made here). */
export function forgetScoreConfigs(orgId: string): void {
  entries.delete(orgId);
}
