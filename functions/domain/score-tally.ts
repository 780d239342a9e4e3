/**
 * What counting a score adds to its agent's day (issue 33), and the difference between two counted states of
 * one score (an edit moves the rollups by it; a deletion withdraws the whole). Pure: no I/O.
 *
 * A score is counted under its agent, its session's start day and its name (a "place"). Per place the rollup
 * holds `count` (every score), and by kind: `numericCount`, `sum` and the value's sign + log bin
 * (score-bins.ts); `trueCount` / `falseCount`; a count per label. Labels are bounded per place
 * (MAX_SCORE_LABELS_PER_DAY, then OTHER_LABEL): the store decides which label a score is counted under and records
 * it, so that the withdrawal takes it from where it was counted.
 */

import type { ScoreValue, ScoreValueKind } from "./score.js";
import { scoreBin, scoreBinAttribute } from "./score-bins.js";

/** Labels counted per agent, score name and day; a further label is counted as OTHER_LABEL. */
export const MAX_SCORE_LABELS_PER_DAY = 20;
export const OTHER_LABEL = "(other)";

/** Where a score is counted: its agent's rollup partition, its session's start day, its name. */
export interface ScorePlace {
  readonly agentName: string;
  readonly day: string;
  readonly name: string;
}

/** What counting recorded of a score: where, what (a label as counted: maybe OTHER_LABEL), and the rollup expiry. */
export interface CountedScore extends ScorePlace {
  readonly valueKind: ScoreValueKind;
  readonly value: ScoreValue;
  /** Epoch seconds at which the place's rollup item expires. */
  readonly ttl: number;
}

/** What a change adds to one place: counters (ours: `count`, `sum`, bins…) and counts per label. */
export interface ScoreTally {
  readonly counters: Readonly<Record<string, number>>;
  readonly labels: ReadonlyMap<string, number>;
}

/** The counters a score rollup item ADDs besides its bins and labels. */
export const SCORE_COUNTERS = ["count", "numericCount", "sum", "trueCount", "falseCount"] as const;

/** A place as one string (for grouping); its parts are client text, so joined by a character neither holds. */
export function placeId(place: ScorePlace): string {
  return `${place.agentName}\u0000${place.day}\u0000${place.name}`;
}

/** What counting `score` adds (sign 1) or withdraws (sign −1) at its place. */
export function tallyOf(score: CountedScore, sign: 1 | -1): ScoreTally {
  const counters: Record<string, number> = { count: sign };
  const labels = new Map<string, number>();
  if (score.valueKind === "numeric" && typeof score.value === "number") {
    counters.numericCount = sign;
    counters.sum = sign * score.value;
    counters[scoreBinAttribute(scoreBin(score.value))] = sign;
  } else if (score.valueKind === "boolean" && typeof score.value === "boolean") {
    counters[score.value ? "trueCount" : "falseCount"] = sign;
  } else if (typeof score.value === "string") {
    labels.set(score.value, sign);
  }
  return { counters, labels };
}

/** One place's share of a change, with the expiry its rollup item keeps. */
export interface PlaceTally {
  readonly place: ScorePlace;
  readonly ttl: number;
  readonly tally: ScoreTally;
}

/** The sum of two tallies, zeros left out. */
export function addTallies(a: ScoreTally, b: ScoreTally): ScoreTally {
  const counters: Record<string, number> = { ...a.counters };
  for (const [name, value] of Object.entries(b.counters)) counters[name] = (counters[name] ?? 0) + value;
  const labels = new Map(a.labels);
  for (const [label, value] of b.labels) labels.set(label, (labels.get(label) ?? 0) + value);
  return {
    counters: Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== 0)),
    labels: new Map([...labels].filter(([, value]) => value !== 0)),
  };
}

export function isEmptyTally(tally: ScoreTally): boolean {
  return Object.keys(tally.counters).length === 0 && tally.labels.size === 0;
}

/**
 * The change from what was counted of a score (`before`, undefined when nothing was) to what is to be counted now
 * (`after`, undefined for a deletion): per place, the tallies summed (an edit in place nets to its difference; an
 * unchanged score to nothing). Places whose share is empty are left out.
 */
export function countingChange(before: CountedScore | undefined, after: CountedScore | undefined): PlaceTally[] {
  return mergePlaceTallies([
    ...(before === undefined ? [] : [{ place: before, ttl: before.ttl, tally: tallyOf(before, -1) }]),
    ...(after === undefined ? [] : [{ place: after, ttl: after.ttl, tally: tallyOf(after, 1) }]),
  ]);
}

/** Shares summed per place (the latest expiry kept), empty ones left out. */
export function mergePlaceTallies(shares: readonly PlaceTally[]): PlaceTally[] {
  const merged = new Map<string, PlaceTally>();
  for (const share of shares) {
    const id = placeId(share.place);
    const found = merged.get(id);
    merged.set(
      id,
      found === undefined
        ? {
            place: { agentName: share.place.agentName, day: share.place.day, name: share.place.name },
            ttl: share.ttl,
            tally: share.tally,
          }
        : { place: found.place, ttl: Math.max(found.ttl, share.ttl), tally: addTallies(found.tally, share.tally) },
    );
  }
  return [...merged.values()]
    .map((share) => ({ ...share, tally: addTallies(share.tally, { counters: {}, labels: new Map() }) }))
    .filter((share) => !isEmptyTally(share.tally));
}

/**
 * The label a categorical value is counted under at a place that already counts `known` labels: itself when known
 * or when there is room, else OTHER_LABEL. `admitted` collects the labels newly admitted by this decision.
 */
export function countedLabel(label: string, known: ReadonlySet<string>, admitted: Set<string>): string {
  if (known.has(label) || admitted.has(label)) return label;
  if (known.size + admitted.size < MAX_SCORE_LABELS_PER_DAY) {
    admitted.add(label);
    return label;
  }
  return OTHER_LABEL;
}
