/**
 * The fine time series the monitors read (issue 34's shared contract; the "series" helper counts and reads them,
 * functions/store/alerts/series-store.ts). Types only.
 */
import type { Environment } from "./api-key.js";

/** Which counters of a tenant (and agent) a series is: all sessions, or one user's, tool's, model's, score's, label's. */
export type SeriesFacet =
  | { readonly kind: "none" }
  | { readonly kind: "user"; readonly user: string }
  | { readonly kind: "tool"; readonly tool: string }
  | { readonly kind: "model"; readonly model: string }
  | { readonly kind: "score"; readonly score: string }
  | { readonly kind: "label"; readonly score: string; readonly label: string };

export interface SeriesQuery {
  readonly orgId: string;
  readonly environment: Environment;
  /** One agent's series; undefined: all agents of the tenant. */
  readonly agent?: string | undefined;
  readonly facet: SeriesFacet;
  /** [start, end), both whole 5 minutes (UTC); end - start ≤ 7 days. */
  readonly start: Date;
  readonly end: Date;
}

/** The counters of a span of time; absent counters are 0. */
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
  /** Session durations of `ended`, the daily rollups' fine bins (duration-bins.ts). */
  readonly durationBins: ReadonlyMap<number, number>;
}

export interface SeriesWindow extends SeriesTotals {
  readonly start: Date;
  readonly end: Date;
  readonly itemsRead: number;
}

/** One UTC hour's counters. */
export interface SeriesPoint extends SeriesTotals {
  readonly start: Date;
}
