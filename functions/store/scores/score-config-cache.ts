/**
 * The organisation's score configurations where scores are written, cached per container (runtime/organisation-
 * cache.ts): at most one Query per organisation per CACHE_TTL_MS, whatever the traffic. A configuration set or
 * deleted applies to scores written up to that long after by a container that read the configurations before
 * (docs/api.md). Bounded: at most MAX_ORGANISATIONS organisations (the least recently loaded goes first), each at
 * most 100 configurations. A failed read is not cached and fails the write, even when an expired read is held (a
 * score that may break its configuration is not stored).
 */
import type { ScoreConfig } from "../../domain/score-config.js";
import { createOrganisationCache } from "../../runtime/organisation-cache.js";
import { listScoreConfigs } from "./score-config-store.js";

const CACHE_TTL_MS = 60_000;
const MAX_ORGANISATIONS = 1_000;

const cache = createOrganisationCache<ReadonlyMap<string, ScoreConfig>>({
  load: async (orgId) => new Map((await listScoreConfigs(orgId)).map((config) => [config.name, config])),
  ttlMs: CACHE_TTL_MS,
  maxOrganisations: MAX_ORGANISATIONS,
  onFailure: "fail",
});

/** The organisation's configurations by score name (read at most once per CACHE_TTL_MS per container). */
export function scoreConfigsOf(orgId: string): Promise<ReadonlyMap<string, ScoreConfig>> {
  return cache.get(orgId);
}

/** Forgets one organisation's configurations in this container (after a change made here). */
export function forgetScoreConfigs(orgId: string): void {
  cache.forget(orgId);
}
