/**
 * Filters of a session listing that no index serves (the console's drill-downs and search): a failure reason, a
 * tool called or failing, a piece of the name. They refine the sessions an index query finds and are checked on
 * each session a page reads. Pure.
 */
import type { Session } from "./session.js";

/**
 * How many characters of a failure reason the rollups group by (longer reasons share the rollup item of their
 * first characters: a key attribute is at most 1 KB). A drill-down from a reason compares these characters.
 */
export const FAILURE_REASON_GROUP_LENGTH = 200;

/** The group a failure reason counts under in the rollups: its first FAILURE_REASON_GROUP_LENGTH code points. */
export function failureReasonGroup(reason: string): string {
  return [...reason].slice(0, FAILURE_REASON_GROUP_LENGTH).join("");
}

export interface SessionRefinements {
  /** Failed with this reason (compared as {@link failureReasonGroup}, as the stats count it). */
  readonly failureReason?: string | undefined;
  /** Called this tool at least once (its `toolCalls`). */
  readonly toolName?: string | undefined;
  /** Had at least one error of this tool (its `toolErrors`). */
  readonly toolError?: string | undefined;
  /** Its name contains this text, ignoring case. */
  readonly nameContains?: string | undefined;
}

export function hasRefinements(refinements: SessionRefinements): boolean {
  return (
    refinements.failureReason !== undefined ||
    refinements.toolName !== undefined ||
    refinements.toolError !== undefined ||
    refinements.nameContains !== undefined
  );
}

/** A count under `name` in a counter map keyed by client text: own keys only (`constructor` is not Object's). */
function counted(counts: Readonly<Record<string, number>> | undefined, name: string): boolean {
  return counts !== undefined && Object.hasOwn(counts, name) && (counts[name] ?? 0) > 0;
}

type RefinedFields = Pick<Session, "name" | "failureReason" | "toolCalls" | "toolErrors">;

export function matchesRefinements(session: RefinedFields, refinements: SessionRefinements): boolean {
  const { failureReason, toolName, toolError, nameContains } = refinements;
  if (failureReason !== undefined) {
    if (session.failureReason === undefined) return false;
    if (failureReasonGroup(session.failureReason) !== failureReasonGroup(failureReason)) return false;
  }
  if (toolName !== undefined && !counted(session.toolCalls, toolName)) return false;
  if (toolError !== undefined && !counted(session.toolErrors, toolError)) return false;
  if (nameContains !== undefined && !session.name.toLowerCase().includes(nameContains.toLowerCase())) return false;
  return true;
}
