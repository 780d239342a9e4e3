/** Agents: every agent of the environment with its session count. */
import { Link } from "react-router";
import { useAgents } from "../../api/agents";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatNumber } from "../../lib/format";

export function AgentsPage() {
  const [environment] = useEnvironment();
  const agents = useAgents(environment);
  return (
    <>
      <div className="page__header">
        <h1>Agents</h1>
      </div>
      {agents.isPending ? <Loading label="Loading agents…" /> : null}
      {agents.isError ? <ErrorState error={agents.error} onRetry={() => agents.refetch()} /> : null}
      {agents.data?.length === 0 ? (
        <EmptyState title={`No agents in ${environment} yet.`}>Agents appear once they record a session.</EmptyState>
      ) : null}
      {agents.data !== undefined && agents.data.length > 0 ? (
        <div className="table-scroll">
          <table className="table">
            <caption>Agents ({environment})</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col" className="num">
                  Sessions
                </th>
              </tr>
            </thead>
            <tbody>
              {agents.data.map((agent) => (
                <tr key={agent.agentName}>
                  <th scope="row">
                    <Link to={withEnvironment(`/agents/${agentPathSegment(agent.agentName)}`, environment)}>
                      {agent.agentName}
                    </Link>
                  </th>
                  <td className="num">{formatNumber(agent.sessionCount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}

/**
 * An agent name as a path segment, its dots encoded too: CloudFront's routing rule (and npm start's) takes a last
 * segment with a dot for a file (`gpt-4.1-bot`), while `%2E` reaches the console's router, which decodes it.
 */
export function agentPathSegment(agentName: string): string {
  return encodeURIComponent(agentName).replaceAll(".", "%2E");
}
