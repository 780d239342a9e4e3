/** The agents ranked by failures or by cost over the period, each figure a link to its sessions. */
import { Link } from "react-router";
import type { AgentSummary, Environment } from "../../api/types";
import { EmptyState } from "../../components/EmptyState";
import { withEnvironment } from "../../lib/environment";
import { formatCost, formatNumber, formatPercent, plural } from "../../lib/format";
import { sessionsLink } from "../../lib/session-filters";
import { costOf } from "../../lib/stats-period";
import { agentPathSegment } from "../agents/agent-path";

const SHOWN = 5;

export function AgentRanking({
  title,
  agents,
  environment,
  from,
  to,
  by,
}: {
  title: string;
  agents: readonly AgentSummary[];
  environment: Environment;
  from: string;
  to: string;
  by: "failures" | "cost";
}) {
  const measure = (agent: AgentSummary) =>
    agent.totals === undefined ? 0 : by === "failures" ? agent.totals.failed : costOf(agent.totals);
  const ranked = agents
    .filter((agent) => measure(agent) > 0)
    .sort((a, b) => measure(b) - measure(a) || a.agentName.localeCompare(b.agentName))
    .slice(0, SHOWN);
  return (
    <section className="ranked" aria-labelledby={`ranking-${by}`}>
      <h2 className="ranked__title" id={`ranking-${by}`}>
        {title}
      </h2>
      {ranked.length === 0 ? (
        <EmptyState
          title={by === "failures" ? "No failed sessions in this period." : "No cost reported in this period."}
        />
      ) : (
        <table className="table table--compact">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" className="num">
                {by === "failures" ? "Failed" : "Cost"}
              </th>
              <th scope="col" className="num">
                {by === "failures" ? "Success rate" : "Sessions"}
              </th>
            </tr>
          </thead>
          <tbody>
            {ranked.map((agent) => {
              const totals = agent.totals;
              const sessions = sessionsLink(
                { agentName: agent.agentName, from, to, ...(by === "failures" ? { status: "failed" } : {}) },
                environment,
              );
              return (
                <tr key={agent.agentName}>
                  <th scope="row" className="ranked__label">
                    <Link to={withEnvironment(`/agents/${agentPathSegment(agent.agentName)}`, environment)}>
                      {agent.agentName}
                    </Link>
                  </th>
                  <td className="num">
                    <Link
                      to={sessions}
                      aria-label={
                        by === "failures"
                          ? `${plural(totals?.failed ?? 0, "failed session")} of ${agent.agentName}`
                          : `${formatCost(measure(agent))}: sessions of ${agent.agentName}`
                      }
                    >
                      {by === "failures" ? formatNumber(totals?.failed) : formatCost(measure(agent))}
                    </Link>
                  </td>
                  <td className="num">
                    {by === "failures" ? formatPercent(totals?.successRate) : formatNumber(totals?.sessions)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
