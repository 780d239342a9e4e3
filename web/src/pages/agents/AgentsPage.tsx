/**
 * Agents: every agent of the environment with its figures over the period (sessions, success rate, failures,
 * cost, tokens) and the last day it started a session; each figure links to the sessions behind it.
 */
import { Link } from "react-router";
import { useAgentsOverview } from "../../api/agents";
import type { AgentSummary } from "../../api/types";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { PeriodSelect } from "../../components/PeriodSelect";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatCompact, formatCost, formatDay, formatNumber, formatPercent, plural } from "../../lib/format";
import { sessionsLink } from "../../lib/session-filters";
import { costOf, DEFAULT_PERIOD, periodRange, today } from "../../lib/stats-period";
import { usePeriodParam } from "../../lib/use-period";
import { NoSessionsYet } from "../sessions/NoSessionsYet";
import { agentPathSegment } from "./agent-path";

function lastActive(day: string | null | undefined): string {
  if (day === null || day === undefined) return "—";
  const current = today();
  if (day === current) return "Today";
  if (Date.parse(current) - Date.parse(day) === 86_400_000) return "Yesterday";
  return formatDay(day);
}

export function AgentsPage() {
  const [environment] = useEnvironment();
  const [chosen, setDays] = usePeriodParam();
  const days = chosen ?? DEFAULT_PERIOD;
  const { from, to } = periodRange(days);
  const overview = useAgentsOverview(environment, from, to);
  const agents = [...(overview.data?.items ?? [])].sort(
    (a, b) =>
      (b.totals?.sessions ?? 0) - (a.totals?.sessions ?? 0) ||
      (b.lastActiveDay ?? "").localeCompare(a.lastActiveDay ?? "") ||
      a.agentName.localeCompare(b.agentName),
  );
  const link = (agent: AgentSummary, status?: string) =>
    sessionsLink({ agentName: agent.agentName, from, to, ...(status === undefined ? {} : { status }) }, environment);
  return (
    <>
      <div className="page__header">
        <h1>Agents</h1>
        <PeriodSelect days={days} onChange={setDays} />
      </div>
      <p className="muted">
        {formatDay(from)} to {formatDay(to)} (UTC days). Figures count the sessions started in the period.
      </p>
      {overview.isPending ? <Loading label="Loading agents…" /> : null}
      {overview.isError ? <ErrorState error={overview.error} onRetry={() => overview.refetch()} /> : null}
      {overview.data?.items.length === 0 ? <NoSessionsYet environment={environment} /> : null}
      {agents.length > 0 ? (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption>Agents ({environment}), busiest first over the period</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col" className="num">
                  Sessions
                </th>
                <th scope="col" className="num">
                  Success rate
                </th>
                <th scope="col" className="num">
                  Failed
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col" className="num">
                  Tokens
                </th>
                <th scope="col">Last active</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((agent) => (
                <tr key={agent.agentName}>
                  <th scope="row" data-label="Agent">
                    <Link
                      to={withEnvironment(
                        `/agents/${agentPathSegment(agent.agentName)}${chosen === undefined ? "" : `?days=${chosen}`}`,
                        environment,
                      )}
                    >
                      {agent.agentName}
                    </Link>
                  </th>
                  <td data-label="Sessions" className="num">
                    <Link
                      to={link(agent)}
                      aria-label={`${plural(agent.totals?.sessions ?? 0, "session")} of ${agent.agentName}`}
                    >
                      {formatNumber(agent.totals?.sessions)}
                    </Link>
                  </td>
                  <td data-label="Success rate" className="num">
                    {formatPercent(agent.totals?.successRate)}
                  </td>
                  <td data-label="Failed" className="num">
                    {agent.totals === undefined || agent.totals.failed === 0 ? (
                      formatNumber(agent.totals?.failed)
                    ) : (
                      <Link
                        to={link(agent, "failed")}
                        aria-label={`${plural(agent.totals.failed, "failed session")} of ${agent.agentName}`}
                      >
                        {formatNumber(agent.totals.failed)}
                      </Link>
                    )}
                  </td>
                  <td data-label="Cost" className="num">
                    {agent.totals === undefined ? "—" : formatCost(costOf(agent.totals))}
                  </td>
                  <td data-label="Tokens" className="num">
                    {formatCompact(agent.totals?.totalTokens)}
                  </td>
                  <td data-label="Last active" className="cell--nowrap">
                    {lastActive(agent.lastActiveDay)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
