/**
 * Conversations: runs that named the same conversation id (GET /api/sdk/conversations, newest first, and
 * GET /api/sdk/conversations/{id}), with X-Environment.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type { Conversation, ConversationPage, Environment, Page } from "./types";
import { useApiRequest } from "./use-api-request";

export const conversationsKey = (orgId: string, environment: Environment) =>
  ["org", orgId, environment, "conversations"] as const;

/** One conversation's read (its runs paged, its first scores, its totals). */
export const conversationKey = (orgId: string, environment: Environment, id: string) =>
  [...conversationsKey(orgId, environment), "one", id] as const;

export const CONVERSATION_RUNS_PAGE_SIZE = 50;
export const CONVERSATION_PAGE_SIZE = 25;

/** The query parameters of GET /api/sdk/conversations the console uses (besides paging). */
export interface ConversationFilters {
  agentName?: string;
  userId?: string;
  from?: string;
  to?: string;
}

/** The environment's conversations, newest first by their first run's start, a page at a time. */
export function useConversations(environment: Environment, filters: ConversationFilters) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useInfiniteQuery({
    queryKey: [...conversationsKey(orgId, environment), "list", filters],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<Page<Conversation>>("/api/sdk/conversations", {
        environment,
        signal,
        query: { ...filters, limit: CONVERSATION_PAGE_SIZE, cursor: pageParam },
      }),
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** One conversation, its runs paged in order; the first page carries the conversation's totals. */
export function useConversation(environment: Environment, id: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useInfiniteQuery({
    queryKey: conversationKey(orgId, environment, id),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<ConversationPage>(`/api/sdk/conversations/${encodeURIComponent(id)}`, {
        environment,
        signal,
        query: { limit: CONVERSATION_RUNS_PAGE_SIZE, cursor: pageParam },
      }),
    getNextPageParam: (page) => page.nextCursor,
  });
}
