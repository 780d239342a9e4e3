/**
 * Scores (issue 33): a session's scores (GET /api/sdk/sessions/{id}/scores, paged), giving, replacing and deleting
 * one as the signed-in member (POST /api/sdk/scores with `source: "console"`, DELETE …/scores/{scoreId}), and the
 * organisation's score configurations (GET/PUT/DELETE /api/sdk/score-configs[/{name}]).
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import { sessionsKey } from "./sessions";
import type { Environment, Page, Score, ScoreConfig, ScoreValue, ScoreValueKind } from "./types";
import { useApiRequest } from "./use-api-request";

/** Scores read per page: the most the API answers at once. */
export const SCORE_PAGE_SIZE = 100;

export const sessionScoresKey = (orgId: string, environment: Environment, sessionId: string) =>
  [...sessionsKey(orgId, environment), "scores", sessionId] as const;

export const scoreConfigsKey = (orgId: string) => ["org", orgId, "score-configs"] as const;

const sessionPath = (sessionId: string) => `/api/sdk/sessions/${encodeURIComponent(sessionId)}`;

/** A session's scores, oldest first, a page at a time (its events' scores among them). */
export function useSessionScores(environment: Environment, sessionId: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useInfiniteQuery({
    queryKey: sessionScoresKey(orgId, environment, sessionId),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<Page<Score>>(`${sessionPath(sessionId)}/scores`, {
        environment,
        signal,
        query: { limit: SCORE_PAGE_SIZE, cursor: pageParam },
      }),
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** What the console sends for a score: `id` replaces that score (an edit), `eventId` scores one step. */
export interface ScoreInput {
  id?: string;
  eventId?: string;
  name: string;
  value: ScoreValue;
  comment?: string;
}

/** After a write: the session's scores and the session read (its first scores) are read again. */
function useInvalidateScores(environment: Environment, sessionId: string) {
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: sessionScoresKey(orgId, environment, sessionId) }),
      queryClient.invalidateQueries({ queryKey: [...sessionsKey(orgId, environment), "one", sessionId] }),
    ]);
}

export function useSaveScore(environment: Environment, sessionId: string) {
  const request = useApiRequest();
  const invalidate = useInvalidateScores(environment, sessionId);
  return useMutation({
    mutationFn: (score: ScoreInput) =>
      request<Score>("/api/sdk/scores", {
        method: "POST",
        environment,
        body: { ...score, sessionId, source: "console" },
      }),
    onSuccess: invalidate,
  });
}

export function useDeleteScore(environment: Environment, sessionId: string) {
  const request = useApiRequest();
  const invalidate = useInvalidateScores(environment, sessionId);
  return useMutation({
    mutationFn: (scoreId: string) =>
      request<undefined>(`${sessionPath(sessionId)}/scores/${encodeURIComponent(scoreId)}`, {
        method: "DELETE",
        environment,
      }),
    onSuccess: invalidate,
  });
}

export function useScoreConfigs() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: scoreConfigsKey(orgId),
    queryFn: ({ signal }) =>
      request<{ items: ScoreConfig[] }>("/api/sdk/score-configs", { signal }).then((body) => body.items),
  });
}

/** The body of PUT /api/sdk/score-configs/{name}. */
export interface ScoreConfigInput {
  name: string;
  dataType: ScoreValueKind;
  min?: number;
  max?: number;
  labels?: string[];
  description?: string;
}

const configPath = (name: string) => `/api/sdk/score-configs/${encodeURIComponent(name)}`;

export function useSetScoreConfig() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, ...body }: ScoreConfigInput) =>
      request<ScoreConfig>(configPath(name), { method: "PUT", body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scoreConfigsKey(orgId) }),
  });
}

export function useDeleteScoreConfig() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => request<undefined>(configPath(name), { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scoreConfigsKey(orgId) }),
  });
}
