/**
 * What one counted change of a session adds to the alert series (functions/domain/alert-series.ts), by time. Pure:
 * the stream consumer calls it for every change whose share of the daily rollups it writes
 * (functions/store/counting/stream-counting.ts), so the series take in exactly the changes the rollups take in.
 *
 * Time of a count: a session's start (`createdAt`) → `started`; its end (`completedAt`) → `ended`, `failed`, its
 * duration bin; an event's `occurredAt` (else its acknowledgement, `createdAt`) → errors, cost, tokens, calls. A
 * replaced event takes its old image's counts out at the old time and adds the new one's at the new time.
 *
 * Facets: `none` always; `user`, `tool`, `model` only for names the tenant's monitors watch (`WatchedFacets`).
 */
import type { SeriesCounter, SeriesFacet } from "./alert-series.js";
import { durationBin } from "./duration-bins.js";
import type { DayCounters } from "./rollup.js";
import {
  type CountedEvent,
  type EndedSession,
  isModelCall,
  modelCallTally,
  type SessionChange,
} from "./session-counting.js";

/** The names some monitor of a tenant watches, per facet kind (Sets: names are client text, `__proto__` included). */
export interface WatchedFacets {
  readonly users: ReadonlySet<string>;
  readonly tools: ReadonlySet<string>;
  readonly models: ReadonlySet<string>;
  readonly scores: ReadonlySet<string>;
  /** Watched labels, keyed `JSON.stringify([score, label])`. */
  readonly labels: ReadonlySet<string>;
}

export const NOTHING_WATCHED: WatchedFacets = {
  users: new Set(),
  tools: new Set(),
  models: new Set(),
  scores: new Set(),
  labels: new Set(),
};

/** The key of a watched label in WatchedFacets.labels. */
export function labelWatchKey(score: string, label: string): string {
  return JSON.stringify([score, label]);
}

/** Counts added to one facet's series at one time (per agent and for all agents alike). */
export interface SeriesCount {
  /** Epoch milliseconds the counts belong to. */
  readonly atMs: number;
  readonly facet: SeriesFacet;
  readonly counters: Readonly<Partial<Record<SeriesCounter, number>>>;
  /** Duration bins (bin → count). */
  readonly bins?: ReadonlyMap<number, number>;
}

/** What counting knows of the session a change belongs to (as counted: its agent and user where it was counted). */
export interface SeriesSession {
  readonly userId: string;
  /** When it started (ISO). */
  readonly createdAt: string;
}

function timeOf(iso: string | undefined, fallbackMs: number): number {
  const parsed = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(parsed) ? parsed : fallbackMs;
}

function finite(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Without zeros (an item is only written for counters that move). */
function nonZero(counters: Partial<Record<SeriesCounter, number>>): Partial<Record<SeriesCounter, number>> {
  return Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== 0));
}

function sessionFacets(session: SeriesSession, watched: WatchedFacets): SeriesFacet[] {
  return [
    { kind: "none" },
    ...(watched.users.has(session.userId) ? [{ kind: "user" as const, user: session.userId }] : []),
  ];
}

function eventCounts(
  event: CountedEvent,
  sign: 1 | -1,
  session: SeriesSession,
  watched: WatchedFacets,
  nowMs: number,
): SeriesCount[] {
  const atMs = timeOf(event.occurredAt ?? event.createdAt, nowMs);
  const modelCall = isModelCall(event);
  const tally = modelCall ? modelCallTally(event) : undefined;
  const cost = sign * finite(event.estimatedCost);
  const tokens = sign * (tally?.totalTokens ?? 0);
  const counts: SeriesCount[] = [];
  const sessionCounters = nonZero({ errors: event.eventType === "error" ? sign : 0, cost, tokens });
  if (Object.keys(sessionCounters).length > 0) {
    for (const facet of sessionFacets(session, watched)) counts.push({ atMs, facet, counters: sessionCounters });
  }
  // A tool's calls and errors as the daily tool rollups count them: tool_call events and error events naming it.
  if (event.toolName !== undefined && watched.tools.has(event.toolName)) {
    const counters = nonZero({
      calls: event.eventType === "tool_call" ? sign : 0,
      callErrors: event.eventType === "error" ? sign : 0,
    });
    if (Object.keys(counters).length > 0)
      counts.push({ atMs, facet: { kind: "tool", tool: event.toolName }, counters });
  }
  if (modelCall && event.model !== undefined && watched.models.has(event.model)) {
    counts.push({
      atMs,
      facet: { kind: "model", model: event.model },
      counters: nonZero({ calls: sign, cost, tokens }),
    });
  }
  return counts;
}

function endCounts(ended: EndedSession, session: SeriesSession, watched: WatchedFacets, nowMs: number): SeriesCount[] {
  const atMs = timeOf(ended.completedAt, nowMs);
  const bins =
    ended.durationMs !== undefined && Number.isFinite(ended.durationMs)
      ? new Map([[durationBin(ended.durationMs), 1]])
      : undefined;
  const counters = nonZero({ ended: 1, failed: ended.status === "failed" ? 1 : 0 });
  return sessionFacets(session, watched).map((facet) => ({
    atMs,
    facet,
    counters,
    ...(bins === undefined ? {} : { bins }),
  }));
}

/**
 * The series counts of one change, given its share of the day rollups (`shareCounters`: a start or an end counts
 * only when the share counted it — a legacy session's was counted on the request path, before the series).
 */
export function seriesCountsOfChange(
  change: SessionChange,
  shareCounters: DayCounters,
  session: SeriesSession,
  watched: WatchedFacets,
  nowMs: number,
): SeriesCount[] {
  switch (change.kind) {
    case "sessionStarted":
      if (shareCounters.sessions !== 1) return [];
      return sessionFacets(session, watched).map((facet) => ({
        atMs: timeOf(session.createdAt, nowMs),
        facet,
        counters: { started: 1 },
      }));
    case "sessionEnded":
      if (shareCounters.completed !== 1 && shareCounters.failed !== 1) return [];
      return endCounts(change.session, session, watched, nowMs);
    case "eventAdded":
      return eventCounts(change.event, 1, session, watched, nowMs);
    case "eventReplaced":
      return [
        ...eventCounts(change.before, -1, session, watched, nowMs),
        ...eventCounts(change.after, 1, session, watched, nowMs),
      ];
  }
}

/** What a score counts, as its counting records it (a label as counted: maybe the day's `(other)`). */
export interface SeriesScore {
  readonly name: string;
  readonly valueKind: string;
  readonly value: number | boolean | string;
}

/**
 * What counting (sign 1) or withdrawing (−1) a score adds to the series at `atMs` (the score's creation), for the
 * names monitors watch: `score` (scoreCount; scoreSum: a numeric value, a boolean true as 1) and `label`
 * (labelCount of that name and label).
 */
export function scoreSeriesCounts(
  score: SeriesScore,
  sign: 1 | -1,
  atMs: number,
  watched: WatchedFacets,
): SeriesCount[] {
  const counts: SeriesCount[] = [];
  if (watched.scores.has(score.name)) {
    const value = typeof score.value === "number" ? score.value : score.value === true ? 1 : 0;
    counts.push({
      atMs,
      facet: { kind: "score", score: score.name },
      counters: nonZero({ scoreCount: sign, scoreSum: sign * (Number.isFinite(value) ? value : 0) }),
    });
  }
  if (typeof score.value === "string" && watched.labels.has(labelWatchKey(score.name, score.value))) {
    counts.push({
      atMs,
      facet: { kind: "label", score: score.name, label: score.value },
      counters: { labelCount: sign },
    });
  }
  return counts;
}
