/**
 * An organisation's committed export runs, newest first, without listing the whole history (issue 35).
 *
 * S3 lists keys in ascending order only, and run ids (`exp_` + ULID) sort by time. So the search walks back in
 * time windows from an upper bound: one listing of the organisation's manifests in the window
 * (`manifests/org=<orgId>/runs/`) and one of the committed runs' manifests in the same window
 * (`manifests/runs/`), intersected — a run is committed when its run manifest exists (export-layout.ts). The
 * first window is a day; each empty or short one doubles the next, down to 2020-01-01 (before any export).
 * A window holding more keys than one read may take is halved instead. The work of one search is bounded by
 * {@link SEARCH_BUDGET} listing requests; a search that runs out of it says where to resume.
 */
import { ulidTime, ulidTimePrefix } from "../../domain/ids.js";
import { organisationManifestPrefix, RUN_MANIFEST_PREFIX } from "../../export/export-layout.js";
import { listKeyRange } from "./export-bucket-reads.js";

/** No export run is older: the search stops here. */
export const SEARCH_FLOOR = Date.parse("2020-01-01T00:00:00Z");
/** Listing requests one search may make. */
export const SEARCH_BUDGET = 24;
/** Keys one window's listing may read before the window is halved. */
const WINDOW_KEYS = 2000;
const FIRST_WINDOW_MS = 24 * 3600 * 1000;
/** The run-id part of a manifest key: `exp_<ULID>.json`. */
const MANIFEST_NAME = /^(exp_[0-9A-HJKMNP-TV-Z]{26})\.json$/;
/**
 * Sorts after every run id's manifest name (`~` is after every Crockford digit): the bound of a search from
 * the newest run.
 */
export const NEWEST_BOUND = "exp_~";

/** Where a search starts: before this manifest name (`exp_<ULID>.json`, or a time prefix `exp_<10 chars>`). */
export type SearchBound = string;

export interface CommittedRunSearch {
  /** Newest first, at most the count asked for. */
  readonly runIds: readonly string[];
  /**
   * The search ran out of its budget before finding them all: the bound to resume from (every older run is
   * before it). Undefined when it reached the floor or found all it was asked for.
   */
  readonly resumeBefore?: SearchBound;
}

/** The run ids of `names` (manifest file names) that are run ids, in order. */
function runIdsOf(keys: readonly string[], prefix: string): string[] {
  return keys.flatMap((key) => {
    const match = MANIFEST_NAME.exec(key.slice(prefix.length));
    return match?.[1] === undefined ? [] : [match[1]];
  });
}

/** The time of a bound: its ULID's time, or now + an hour for {@link NEWEST_BOUND}. */
function boundTime(bound: SearchBound, now: number): number {
  if (bound === NEWEST_BOUND) return now + 3600 * 1000;
  const time = ulidTime(bound.slice("exp_".length));
  return Number.isNaN(time) ? now + 3600 * 1000 : time;
}

/** Whether `bound` has a shape the search accepts (from a decoded cursor). */
export function isSearchBound(bound: string): boolean {
  return bound === NEWEST_BOUND || /^exp_[0-9A-HJKMNP-TV-Z]{10}([0-9A-HJKMNP-TV-Z]{16}\.json)?$/.test(bound);
}

/**
 * Up to `count` of the organisation's committed runs before `before`, newest first.
 */
export async function findCommittedRuns(
  orgId: string,
  count: number,
  before: SearchBound = NEWEST_BOUND,
  now: number = Date.now(),
): Promise<CommittedRunSearch> {
  const organisationPrefix = organisationManifestPrefix(orgId);
  const found: string[] = [];
  let upper = before;
  let upperTime = boundTime(before, now);
  let span = FIRST_WINDOW_MS;
  let requests = 0;
  while (found.length < count) {
    if (upperTime <= SEARCH_FLOOR) return { runIds: found };
    if (requests >= SEARCH_BUDGET) return { runIds: found, resumeBefore: upper };
    const lowerTime = Math.max(SEARCH_FLOOR, upperTime - span);
    const lower = `exp_${ulidTimePrefix(lowerTime)}`;
    const ranges = { startAfter: lower, endBefore: upper, maxKeys: WINDOW_KEYS };
    const [ofOrganisation, committed] = await Promise.all([
      listKeyRange({
        prefix: organisationPrefix,
        startAfter: organisationPrefix + ranges.startAfter,
        endBefore: organisationPrefix + ranges.endBefore,
        maxKeys: ranges.maxKeys,
      }),
      listKeyRange({
        prefix: RUN_MANIFEST_PREFIX,
        startAfter: RUN_MANIFEST_PREFIX + ranges.startAfter,
        endBefore: RUN_MANIFEST_PREFIX + ranges.endBefore,
        maxKeys: ranges.maxKeys,
      }),
    ]);
    requests += ofOrganisation.requests + committed.requests;
    if ((ofOrganisation.truncated || committed.truncated) && span > 1000) {
      // Too many runs in the window to read at once: look at its newer half first.
      span = Math.floor(span / 2);
      continue;
    }
    const committedIds = new Set(runIdsOf(committed.keys, RUN_MANIFEST_PREFIX));
    const newestFirst = runIdsOf(ofOrganisation.keys, organisationPrefix).reverse();
    for (const runId of newestFirst) {
      if (!committedIds.has(runId)) continue;
      found.push(runId);
      if (found.length === count) return { runIds: found };
    }
    upper = lower;
    upperTime = lowerTime;
    span *= 2;
  }
  return { runIds: found };
}
