/**
 * Scores (issue 33): the scores of a target — a session (its events' among them) or a conversation (its own) — paged
 * (GET /api/sdk/sessions/{id}/scores, GET /api/sdk/conversations/{id}/scores), giving, replacing and deleting one as
 * the signed-in member (POST /api/sdk/scores with `source: "console"`, DELETE …/scores/{scoreId}), and the
 * organisation's score configurations (GET/PUT/DELETE /api/sdk/score-configs[/{name}]).
 */
import { type QueryKey, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import { conversationKey, conversationsKey } from "./conversations";
import { sessionsKey } from "./sessions";
import type { Environment, Page, Score, ScoreConfig, ScoreValue, ScoreValueKind } from "./types";
import { useApiRequest } from "./use-api-request";

/** Scores read per page: the most the API answers at once. */
export const SCORE_PAGE_SIZE = 100;

/**
 * What a score is given to: a session, or one step of it (`eventId`), or a whole conversation. A score has exactly
 * one target (the API refuses both ids, and a conversation's score has no step).
 */
export type ScoreTarget =
  | { kind: "session"; sessionId: string; eventId?: string | undefined }
  | { kind: "conversation"; conversationId: string };

export const sessionScoresKey = (orgId: string, environment: Environment, sessionId: string) =>
  [...sessionsKey(orgId, environment), "scores", sessionId] as const;

export const conversationScoresKey = (orgId: string, environment: Environment, conversationId: string) =>
  [...conversationsKey(orgId, environment), "scores", conversationId] as const;

export const scoreConfigsKey = (orgId: string) => ["org", orgId, "score-configs"] as const;

/** The path of the target's scores: …/sessions/{id}/scores or …/conversations/{id}/scores (a step's are its session's). */
function scoresPath(target: ScoreTarget): string {
  return target.kind === "session"
    ? `/api/sdk/sessions/${encodeURIComponent(target.sessionId)}/scores`
    : `/api/sdk/conversations/${encodeURIComponent(target.conversationId)}/scores`;
}

function useScorePages(environment: Environment, queryKey: QueryKey, path: string) {
  const request = useApiRequest();
  return useInfiniteQuery({
    queryKey,
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<Page<Score>>(path, { environment, signal, query: { limit: SCORE_PAGE_SIZE, cursor: pageParam } }),
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** The paged read of a target's scores, as the scores section shows it. */
export type ScorePagesQuery = ReturnType<typeof useScorePages>;

/** A session's scores, oldest first, a page at a time (its events' scores among them). */
export function useSessionScores(environment: Environment, sessionId: string): ScorePagesQuery {
  const { orgId } = useOrganisation();
  return useScorePages(
    environment,
    sessionScoresKey(orgId, environment, sessionId),
    scoresPath({ kind: "session", sessionId }),
  );
}

/** A conversation's own scores, oldest first, a page at a time (its runs' are each their session's). */
export function useConversationScores(environment: Environment, conversationId: string): ScorePagesQuery {
  const { orgId } = useOrganisation();
  return useScorePages(
    environment,
    conversationScoresKey(orgId, environment, conversationId),
    scoresPath({ kind: "conversation", conversationId }),
  );
}

/** What the console sends for a score besides its target: `id` replaces that score (an edit). */
export interface ScoreInput {
  id?: string;
  name: string;
  value: ScoreValue;
  comment?: string;
}

/** The body of POST /api/sdk/scores: the score with its target's ids. */
function scoreBody(target: ScoreTarget, score: ScoreInput) {
  const ids =
    target.kind === "conversation"
      ? { conversationId: target.conversationId }
      : { sessionId: target.sessionId, ...(target.eventId === undefined ? {} : { eventId: target.eventId }) };
  return { ...score, ...ids, source: "console" };
}

/**
 * After a write, what shows the target's scores is read again: its scores and its read (the first scores; a
 * conversation's totals). The conversations too after a session's score: a run's scores count in its conversation's
 * totals (only the ones on screen are read again at once; the others when next shown).
 */
function useInvalidateScores(environment: Environment, target: ScoreTarget) {
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  const keys: QueryKey[] =
    target.kind === "session"
      ? [
          sessionScoresKey(orgId, environment, target.sessionId),
          [...sessionsKey(orgId, environment), "one", target.sessionId],
          conversationsKey(orgId, environment),
        ]
      : [
          conversationScoresKey(orgId, environment, target.conversationId),
          conversationKey(orgId, environment, target.conversationId),
        ];
  return () => Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}

export function useSaveScore(environment: Environment, target: ScoreTarget) {
  const request = useApiRequest();
  const invalidate = useInvalidateScores(environment, target);
  return useMutation({
    mutationFn: (score: ScoreInput) =>
      request<Score>("/api/sdk/scores", { method: "POST", environment, body: scoreBody(target, score) }),
    onSuccess: invalidate,
  });
}

export function useDeleteScore(environment: Environment, target: ScoreTarget) {
  const request = useApiRequest();
  const invalidate = useInvalidateScores(environment, target);
  return useMutation({
    mutationFn: (scoreId: string) =>
      request<undefined>(`${scoresPath(target)}/${encodeURIComponent(scoreId)}`, { method: "DELETE", environment }),
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
