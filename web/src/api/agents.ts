/** Analytics: GET /api/sdk/agents (with a period: the overview), /api/sdk/agents/{name}/stats and …/models. */
import { useQuery } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type { AgentList, AgentModelsReport, AgentStats, AgentSummary, Environment } from "./types";
import { useApiRequest } from "./use-api-request";

export const agentsKey = (orgId: string, environment: Environment) => ["org", orgId, environment, "agents"] as const;

/** The agents' names and session counts (filter suggestions). */
export function useAgents(environment: Environment) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...agentsKey(orgId, environment), "names"],
    queryFn: ({ signal }) =>
      request<{ items: AgentSummary[] }>("/api/sdk/agents", { environment, signal }).then((body) => body.items),
  });
}

/** Every agent's figures over whole UTC days `from`…`to`, and the organisation's as their sum. */
export function useAgentsOverview(environment: Environment, from: string, to: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...agentsKey(orgId, environment), "overview", from, to],
    queryFn: ({ signal }) => request<AgentList>("/api/sdk/agents", { environment, signal, query: { from, to } }),
  });
}

export function useAgentStats(
  environment: Environment,
  agentName: string,
  from: string,
  to: string,
  options: { enabled?: boolean } = {},
) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...agentsKey(orgId, environment), agentName, "stats", from, to],
    enabled: options.enabled ?? true,
    queryFn: ({ signal }) =>
      request<AgentStats>(`/api/sdk/agents/${encodeURIComponent(agentName)}/stats`, {
        environment,
        signal,
        query: { from, to },
      }),
  });
}

/** One agent's model calls over whole UTC days `from`…`to`, per model. */
export function useAgentModelUsage(environment: Environment, agentName: string, from: string, to: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...agentsKey(orgId, environment), agentName, "models", from, to],
    queryFn: ({ signal }) =>
      request<AgentModelsReport>(`/api/sdk/agents/${encodeURIComponent(agentName)}/models`, {
        environment,
        signal,
        query: { from, to },
      }),
  });
}
