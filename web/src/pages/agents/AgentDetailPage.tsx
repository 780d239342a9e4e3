/**
 * One agent's stats over a period: per-day charts, duration percentiles, failure reasons and tools (each a link to
 * the sessions behind it), the scores per name, cost by model with the calls no price covered. Without a period in the URL, the shortest one that holds the agent's data.
 */
import { Link, useParams } from "react-router";
import { useAgentModelUsage, useAgentStats } from "../../api/agents";
import type { AgentStats, Environment } from "../../api/types";
import { CostByModel } from "../../components/CostByModel";
import { DurationPercentiles } from "../../components/DurationPercentiles";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { PeriodSelect } from "../../components/PeriodSelect";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatCompact, formatCost, formatDay, formatNumber, formatPercent } from "../../lib/format";
import { sessionsLink } from "../../lib/session-filters";
import { costOf, dailySeries, fittingPeriod, LONGEST_PERIOD, periodRange } from "../../lib/stats-period";
import { usePeriodParam } from "../../lib/use-period";
import { DailyChart } from "./DailyChart";
import { RankedList } from "./RankedList";
import { ScoreCharts } from "./ScoreCharts";

/**
 * The period to show: the URL's, else the one that fits the agent's data, found from its longest-period stats
 * (read once, and kept: choosing "Last 12 months" afterwards costs nothing).
 */
function usePeriodFittingData(environment: Environment, name: string) {
  const [chosen, setDays] = usePeriodParam();
  const longest = periodRange(LONGEST_PERIOD);
  const probe = useAgentStats(environment, name, longest.from, longest.to, { enabled: chosen === undefined });
  const fitted = probe.data === undefined ? undefined : fittingPeriod(probe.data.days[0]?.day);
  const days = chosen ?? fitted;
  return { days, setDays, probe };
}

export function AgentDetailPage() {
  const { name = "" } = useParams();
  const [environment] = useEnvironment();
  const { days, setDays, probe } = usePeriodFittingData(environment, name);
  const range = periodRange(days ?? LONGEST_PERIOD);
  const stats = useAgentStats(environment, name, range.from, range.to, { enabled: days !== undefined });
  const pending = days === undefined ? probe.isPending : stats.isPending;
  const error = days === undefined ? probe.error : stats.error;
  return (
    <>
      <p>
        <Link to={withEnvironment("/agents", environment)}>← All agents</Link>
      </p>
      <div className="page__header">
        <h1>{name}</h1>
        {days === undefined ? null : <PeriodSelect days={days} onChange={setDays} />}
      </div>
      <p className="muted">
        {formatDay(range.from)} to {formatDay(range.to)} (UTC days). Sessions count on the day they started; their
        outcome once they end.
      </p>
      {pending && error === null ? <Loading label="Loading stats…" /> : null}
      {error !== null ? (
        <ErrorState error={error} onRetry={() => (days === undefined ? probe.refetch() : stats.refetch())} />
      ) : null}
      {stats.data !== undefined && stats.data.totals.sessions === 0 && stats.data.totals.events === 0 ? (
        <EmptyState title="No sessions of this agent in this period.">Choose a longer period.</EmptyState>
      ) : null}
      {stats.data !== undefined && (stats.data.totals.sessions > 0 || stats.data.totals.events > 0) ? (
        <AgentFigures stats={stats.data} environment={environment} />
      ) : null}
    </>
  );
}

function AgentFigures({ stats, environment }: { stats: AgentStats; environment: Environment }) {
  const { totals, from, to, agentName } = stats;
  // One series for the four charts (every day of the period, empty days filled).
  const series = dailySeries(stats);
  const link = (filters: Record<string, string>) => sessionsLink({ agentName, from, to, ...filters }, environment);
  const models = useAgentModelUsage(environment, agentName, from, to);
  return (
    <>
      <dl className="metrics">
        <div className="metric">
          <dt>Sessions</dt>
          <dd>
            <Link to={link({})}>{formatNumber(totals.sessions)}</Link>
          </dd>
        </div>
        <div className="metric">
          <dt>Success rate</dt>
          <dd>{formatPercent(totals.successRate)}</dd>
        </div>
        <div className="metric">
          <dt>Failed</dt>
          <dd>
            {totals.failed === 0 ? "0" : <Link to={link({ status: "failed" })}>{formatNumber(totals.failed)}</Link>}
          </dd>
        </div>
        <div className="metric">
          <dt>Cost</dt>
          <dd>{formatCost(costOf(totals))}</dd>
        </div>
        <div className="metric">
          <dt>Tokens</dt>
          <dd>{formatCompact(totals.totalTokens)}</dd>
        </div>
      </dl>
      <DurationPercentiles durations={totals.durationMs} />
      <div className="charts">
        <DailyChart
          title="Sessions per day"
          data={series}
          field="sessions"
          kind="bar"
          format={formatCompact}
          color="var(--chart-1)"
        />
        <DailyChart
          title="Success rate per day (%)"
          data={series}
          field="successRate"
          kind="line"
          format={(v) => `${Math.round(v)}%`}
          color="var(--chart-2)"
        />
        <DailyChart
          title="Cost per day (USD)"
          data={series}
          field="cost"
          kind="bar"
          format={formatCost}
          color="var(--chart-3)"
        />
        <DailyChart
          title="Tokens per day"
          data={series}
          field="tokens"
          kind="bar"
          format={formatCompact}
          color="var(--chart-4)"
        />
      </div>
      <ScoreCharts stats={stats} environment={environment} />
      <div className="ranked-grid">
        <RankedList
          title="Top failure reasons"
          countLabel="Sessions"
          empty="No failures in this period."
          rows={stats.topFailureReasons.map((row) => ({
            label: row.reason,
            count: row.count,
            to: link({ status: "failed", failureReason: row.reason }),
          }))}
        />
        <RankedList
          title="Top tools by calls"
          countLabel="Calls"
          empty="No tool calls in this period."
          rows={stats.topToolsByCalls.map((row) => ({
            label: row.toolName,
            count: row.calls,
            to: row.toolName === OTHER_TOOLS ? undefined : link({ toolName: row.toolName }),
          }))}
        />
        <RankedList
          title="Top tools by errors"
          countLabel="Errors"
          empty="No tool errors in this period."
          rows={stats.topToolsByErrors.map((row) => ({
            label: row.toolName,
            count: row.errors,
            to: row.toolName === OTHER_TOOLS ? undefined : link({ toolError: row.toolName }),
          }))}
        />
      </div>
      <CostByModel query={models} environment={environment} scope={agentName} />
    </>
  );
}

/** Where a session's tools past its first 20 are counted (functions/domain/rollup.ts): no session lists it by name. */
const OTHER_TOOLS = "(other)";
