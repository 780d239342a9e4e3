/** Analytics: GET /api/sdk/agents and /api/sdk/agents/{name}/stats. */
import { useQuery } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type { AgentStats, AgentSummary, Environment } from "./types";
import { useApiRequest } from "./use-api-request";

export function useAgents(environment: Environment) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: ["org", orgId, environment, "agents"],
    queryFn: ({ signal }) =>
      request<{ items: AgentSummary[] }>("/api/sdk/agents", { environment, signal }).then((body) => body.items),
  });
}

export function useAgentStats(environment: Environment, agentName: string, from: string, to: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: ["org", orgId, environment, "agents", agentName, "stats", from, to],
    queryFn: ({ signal }) =>
      request<AgentStats>(`/api/sdk/agents/${encodeURIComponent(agentName)}/stats`, {
        environment,
        signal,
        query: { from, to },
      }),
  });
}
