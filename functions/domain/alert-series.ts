/**
 * The fine time series monitors read (issue 34): counts per tenant, per agent (or for all agents) and per watched
 * facet, in 5-minute and hourly buckets, counted exactly once by the stream consumer
 * (functions/store/counting/series-counting.ts) and read by functions/store/alerts/series-store.ts.
 * The shapes are the alerts contract's; the bucket arithmetic is functions/domain/series-buckets.ts.
 */
import type { Environment } from "./api-key.js";

/**
 * What a series counts beside its tenant and agent: everything (`none`), or one watched name.
 * Which counters a facet holds: `none`/`user`: started, ended, failed, errors, cost, tokens, durationBins;
 * `tool`: calls, callErrors; `model`: calls, cost, tokens; `score`: scoreCount, scoreSum; `label`: labelCount.
 */
export type SeriesFacet =
  | { readonly kind: "none" }
  | { readonly kind: "user"; readonly user: string }
  | { readonly kind: "tool"; readonly tool: string }
  | { readonly kind: "model"; readonly model: string }
  | { readonly kind: "score"; readonly score: string }
  | { readonly kind: "label"; readonly score: string; readonly label: string };

export type SeriesFacetKind = SeriesFacet["kind"];

export interface SeriesQuery {
  readonly orgId: string;
  readonly environment: Environment;
  /** One agent's series; undefined: all agents of the tenant. */
  readonly agent?: string | undefined;
  readonly facet: SeriesFacet;
  /** [start, end): both whole 5 minutes (UTC); end - start ≤ 7 days. */
  readonly start: Date;
  readonly end: Date;
}

/** Counts over some time; absent counters are 0. */
export interface SeriesTotals {
  readonly started: number;
  readonly ended: number;
  readonly failed: number;
  readonly errors: number;
  readonly cost: number;
  readonly tokens: number;
  readonly calls: number;
  readonly callErrors: number;
  readonly scoreCount: number;
  readonly scoreSum: number;
  readonly labelCount: number;
  /** Session durations of `ended`, in the daily rollups' fine bins (functions/domain/duration-bins.ts). */
  readonly durationBins: ReadonlyMap<number, number>;
}

export interface SeriesWindow extends SeriesTotals {
  readonly start: Date;
  readonly end: Date;
  /** Items the read returned (its cost: eventually consistent, 0.5 RRU per 4 KB read). */
  readonly itemsRead: number;
}

/** One UTC hour's counts. */
export interface SeriesPoint extends SeriesTotals {
  readonly start: Date;
}

/** The plain counters of SeriesTotals (everything but the duration bins), as stored on a series item. */
export const SERIES_COUNTERS = [
  "started",
  "ended",
  "failed",
  "errors",
  "cost",
  "tokens",
  "calls",
  "callErrors",
  "scoreCount",
  "scoreSum",
  "labelCount",
] as const;

export type SeriesCounter = (typeof SERIES_COUNTERS)[number];

/** Totals of nothing. */
export function emptySeriesTotals(): SeriesTotals {
  return {
    started: 0,
    ended: 0,
    failed: 0,
    errors: 0,
    cost: 0,
    tokens: 0,
    calls: 0,
    callErrors: 0,
    scoreCount: 0,
    scoreSum: 0,
    labelCount: 0,
    durationBins: new Map(),
  };
}
