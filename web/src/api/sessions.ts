/** Sessions and their events: the SDK read routes, with X-Environment. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import { agentsKey } from "./agents";
import type { Environment, Page, Session, SessionEvent } from "./types";
import { useApiRequest } from "./use-api-request";

/** The query parameters of GET /api/sdk/sessions the console uses (besides paging). */
export interface SessionFilters {
  agentName?: string;
  userId?: string;
  status?: string;
  from?: string;
  to?: string;
  failureReason?: string;
  toolName?: string;
  toolError?: string;
  nameContains?: string;
  /** A score condition (issue 33): the name, and at most one of a range, a label or yes/no. */
  scoreName?: string;
  scoreMin?: string;
  scoreMax?: string;
  scoreLabel?: string;
  scoreValue?: string;
}

export const sessionsKey = (orgId: string, environment: Environment) =>
  ["org", orgId, environment, "sessions"] as const;

export const SESSION_PAGE_SIZE = 25;

export function useSessions(environment: Environment, filters: SessionFilters) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useInfiniteQuery({
    queryKey: [...sessionsKey(orgId, environment), "list", filters],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<Page<Session>>("/api/sdk/sessions", {
        environment,
        signal,
        query: { ...filters, limit: SESSION_PAGE_SIZE, cursor: pageParam },
      }),
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** The newest few sessions matching `filters` (one page, no paging): the overview's latest failures. */
export function useLatestSessions(environment: Environment, filters: SessionFilters, limit: number) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...sessionsKey(orgId, environment), "latest", filters, limit],
    queryFn: ({ signal }) =>
      request<Page<Session>>("/api/sdk/sessions", { environment, signal, query: { ...filters, limit } }).then(
        (page) => page.items,
      ),
  });
}

export function useSession(environment: Environment, id: string, options: { enabled?: boolean } = {}) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...sessionsKey(orgId, environment), "one", id],
    enabled: options.enabled ?? true,
    queryFn: ({ signal }) => request<Session>(`/api/sdk/sessions/${encodeURIComponent(id)}`, { environment, signal }),
  });
}

export function useSessionEvents(environment: Environment, id: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useInfiniteQuery({
    queryKey: [...sessionsKey(orgId, environment), "events", id],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<Page<SessionEvent>>(`/api/sdk/sessions/${encodeURIComponent(id)}/events`, {
        environment,
        signal,
        query: { limit: 100, cursor: pageParam },
      }),
    getNextPageParam: (page) => page.nextCursor,
  });
}

export function useDeleteSession(environment: Environment) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      request<undefined>(`/api/sdk/sessions/${encodeURIComponent(id)}`, { method: "DELETE", environment }),
    onSuccess: (_, id) => {
      // The lists and the stats change; the deleted session's own queries are not asked again (they would 404):
      // the page showing it goes away.
      const own = (key: readonly unknown[]) =>
        (key[4] === "one" || key[4] === "events" || key[4] === "scores") && key[5] === id;
      void queryClient.invalidateQueries({
        queryKey: sessionsKey(orgId, environment),
        predicate: (query) => !own(query.queryKey),
      });
      void queryClient.invalidateQueries({ queryKey: agentsKey(orgId, environment) });
    },
  });
}

/** A field of an event that the API may answer with a URL when large: it is fetched from the API itself. */
export type EventFieldName = "toolInput" | "toolOutput" | "reasoning";

/**
 * A field too large to come inline (the events route gives a presigned S3 URL for it, which the console's CSP
 * does not let it fetch): read whole through `GET /api/sdk/sessions/{id}/events/{eventId}/{field}` on the
 * console's own origin, only when asked for.
 */
export function useEventField(
  environment: Environment,
  event: { sessionId: string; id: string },
  field: EventFieldName,
  enabled: boolean,
) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...sessionsKey(orgId, environment), "field", event.sessionId, event.id, field],
    enabled,
    staleTime: Infinity,
    queryFn: ({ signal }) =>
      request<string>(
        `/api/sdk/sessions/${encodeURIComponent(event.sessionId)}/events/${encodeURIComponent(event.id)}/${field}`,
        { environment, signal, text: true },
      ),
  });
}
