/**
 * The facets a tenant's monitors watch (users, tools, models, scores, labels named in their `filters`), which the
 * stream consumer counts into the alert series beside `none` (functions/domain/series-counting.ts). Read from the
 * monitors' items (pk `MONITORS`, `begins_with(sk, "<orgId>#<environment>#")`, only `filters` and `enabled`; at
 * most 100 monitors a tenant) and cached per container for 60 s: a new monitor's facet counts from at most a
 * minute after its creation. Only enabled monitors are watched.
 *
 * A failed read serves the last value read, if any (it is as good as a cached one); with none, it throws and the
 * consumer's batch is delivered again (nothing counted twice: the rollup marks, rollup-flush.ts).
 */

import type { Environment } from "../../domain/api-key.js";
import { labelWatchKey, type WatchedFacets } from "../../domain/series-counting.js";
import { createOrganisationCache } from "../../runtime/organisation-cache.js";
import type { Item } from "../table/entity.js";
import { MONITORS_PARTITION, tenantMonitorsPrefix } from "../table/keys.js";
import { queryAll } from "../table/table-operations.js";

const CACHE_MS = 60_000;
/** Monitors read per tenant at most (100 are allowed; the rest would be a defect, never a cost). */
const MONITORS_READ = 200;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The watched names of the monitor items read (disabled monitors and malformed filters skipped). */
export function watchedFacetsOf(items: readonly Item[]): WatchedFacets {
  const users = new Set<string>();
  const tools = new Set<string>();
  const models = new Set<string>();
  const scores = new Set<string>();
  const labels = new Set<string>();
  for (const item of items) {
    if (item.enabled !== true) continue;
    const filters = item.filters;
    if (typeof filters !== "object" || filters === null || Array.isArray(filters)) continue;
    const read = (name: string) => (Object.hasOwn(filters, name) ? text((filters as Item)[name]) : undefined);
    const user = read("user");
    const tool = read("tool");
    const model = read("model");
    const score = read("score");
    const label = read("label");
    if (user !== undefined) users.add(user);
    if (tool !== undefined) tools.add(tool);
    if (model !== undefined) models.add(model);
    if (score !== undefined) scores.add(score);
    if (score !== undefined && label !== undefined) labels.add(labelWatchKey(score, label));
  }
  return { users, tools, models, scores, labels };
}

const SEPARATOR = "\u0000";

async function loadWatched(tenantKey: string): Promise<WatchedFacets> {
  const [orgId, environment] = tenantKey.split(SEPARATOR) as [string, Environment];
  const items = await queryAll(
    {
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": MONITORS_PARTITION, ":prefix": tenantMonitorsPrefix(orgId, environment) },
      ExpressionAttributeNames: { "#filters": "filters", "#enabled": "enabled" },
      ProjectionExpression: "#filters, #enabled",
      ConsistentRead: false,
    },
    { limit: MONITORS_READ },
  );
  return watchedFacetsOf(items);
}

const cache = createOrganisationCache<WatchedFacets>({
  load: loadWatched,
  ttlMs: CACHE_MS,
  maxOrganisations: 10_000,
  onFailure: "serve-stale",
});

/** What the tenant's monitors watch, read at most once a minute per container. */
export function watchedFacets(orgId: string, environment: Environment): Promise<WatchedFacets> {
  return cache.get(`${orgId}${SEPARATOR}${environment}`);
}

/** Forgets what was read (tests that create a monitor and count at once). */
export function forgetWatchedFacets(): void {
  cache.clear();
}
