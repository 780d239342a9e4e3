/**
 * Filtering sessions by a score (ListSessions' `scoreName` with `scoreMin`/`scoreMax`, `scoreLabel` or
 * `scoreValue`). A session's score of a name is its latest one: the most recently written (`updatedAt`, then the
 * greater id), so an edit or a second verdict of the same name replaces the first for filtering. Pure.
 */
import type { ScoreValue } from "./score.js";

export interface ScoreFilter {
  readonly name: string;
  /** Numeric scores from `min` to `max`, both included (either may be absent). */
  readonly min?: number | undefined;
  readonly max?: number | undefined;
  /** A categorical score of this label. */
  readonly label?: string | undefined;
  /** A boolean score of this value. */
  readonly value?: boolean | undefined;
}

/** A score of the name, as the filter reads it. */
export interface NamedScore {
  readonly id: string;
  readonly value: ScoreValue;
  readonly updatedAt: string;
}

/** The latest of a session's scores of one name, or undefined when it has none. */
export function latestScore(scores: readonly NamedScore[]): NamedScore | undefined {
  let latest: NamedScore | undefined;
  for (const score of scores) {
    if (
      latest === undefined ||
      score.updatedAt > latest.updatedAt ||
      (score.updatedAt === latest.updatedAt && score.id > latest.id)
    ) {
      latest = score;
    }
  }
  return latest;
}

/** Whether a session whose latest score of the filter's name is `latest` matches (none: never). */
export function matchesScoreFilter(latest: NamedScore | undefined, filter: ScoreFilter): boolean {
  if (latest === undefined) return false;
  const { value } = latest;
  if (filter.label !== undefined) return value === filter.label;
  if (filter.value !== undefined) return value === filter.value;
  if (filter.min !== undefined || filter.max !== undefined) {
    if (typeof value !== "number") return false;
    return (filter.min === undefined || value >= filter.min) && (filter.max === undefined || value <= filter.max);
  }
  return true;
}
