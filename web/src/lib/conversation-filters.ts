/**
 * The conversation list's filters as URL search parameters (agent, user, UTC days), as the sessions list keeps its
 * own: shareable, back-button friendly.
 */
import type { ConversationFilters } from "../api/conversations";
import { dayBoundary } from "./session-filters";

export const CONVERSATION_FILTERS = ["agentName", "userId", "from", "to"] as const;
export type ConversationFilterValues = Record<(typeof CONVERSATION_FILTERS)[number], string>;

export const NO_CONVERSATION_FILTERS: ConversationFilterValues = { agentName: "", userId: "", from: "", to: "" };

export function readConversationFilters(params: URLSearchParams): ConversationFilterValues {
  return {
    agentName: params.get("agentName") ?? "",
    userId: params.get("userId") ?? "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
  };
}

/** Writes the filters over `current`, keeping other parameters (the environment). */
export function writeConversationFilters(
  current: URLSearchParams,
  values: Partial<ConversationFilterValues>,
): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const name of CONVERSATION_FILTERS) {
    const value = values[name];
    if (value === undefined) continue;
    if (value.trim() === "") next.delete(name);
    else next.set(name, value.trim());
  }
  return next;
}

/** The API's filters: the days as the first and the last millisecond of those UTC days. */
export function toConversationApiFilters(values: ConversationFilterValues): ConversationFilters {
  const filters: ConversationFilters = {};
  if (values.agentName !== "") filters.agentName = values.agentName;
  if (values.userId !== "") filters.userId = values.userId;
  const from = dayBoundary(values.from, false);
  const to = dayBoundary(values.to, true);
  if (from !== undefined) filters.from = from;
  if (to !== undefined) filters.to = to;
  return filters;
}
