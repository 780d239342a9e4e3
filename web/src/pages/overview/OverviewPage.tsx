/**
 * The first page after sign-in: the organisation's sessions, success rate, cost and tokens per day across its
 * agents; the agents ranked by failures and by cost; cost by model, with the calls no price covered; the latest
 * failed sessions. Every figure links to the
 * sessions behind it.
 */
import { Link } from "react-router";
import { useAgentsOverview } from "../../api/agents";
import { useModelUsage } from "../../api/prices";
import { useLatestSessions } from "../../api/sessions";
import type { DayStats, Environment } from "../../api/types";
import { CostByModel } from "../../components/CostByModel";
import { DayBars } from "../../components/DayBars";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { PeriodSelect } from "../../components/PeriodSelect";
import { StatTile } from "../../components/StatTile";
import { useEnvironment } from "../../lib/environment";
import { formatCompact, formatCost, formatDay, formatNumber, formatPercent, plural } from "../../lib/format";
import { type FilterValues, sessionsLink } from "../../lib/session-filters";
import { costOf, type DayPoint, DEFAULT_PERIOD, dailySeries, periodRange } from "../../lib/stats-period";
import { usePeriodParam } from "../../lib/use-period";
import { NoSessionsYet } from "../sessions/NoSessionsYet";
import { AgentRanking } from "./AgentRanking";
import { LatestFailures } from "./LatestFailures";

export function OverviewPage() {
  const [environment] = useEnvironment();
  const [chosen, setDays] = usePeriodParam();
  const days = chosen ?? DEFAULT_PERIOD;
  const { from, to } = periodRange(days);
  const overview = useAgentsOverview(environment, from, to);
  const latestFailed = useLatestSessions(environment, { status: "failed" }, 5);
  const models = useModelUsage(environment, from, to);
  const link = (filters: Partial<FilterValues>) => sessionsLink({ from, to, ...filters }, environment);
  const data = overview.data;
  const totals = data?.totals;
  return (
    <>
      <div className="page__header">
        <h1>Overview</h1>
        <PeriodSelect days={days} onChange={setDays} />
      </div>
      <p className="muted">
        {formatDay(from)} to {formatDay(to)}, UTC days, all agents. Sessions count on the day they started.
      </p>
      {overview.isPending ? <Loading label="Loading the overview…" /> : null}
      {overview.isError ? <ErrorState error={overview.error} onRetry={() => overview.refetch()} /> : null}
      {data !== undefined && data.items.length === 0 ? <NoSessionsYet environment={environment} /> : null}
      {data !== undefined && totals !== undefined && data.items.length > 0 ? (
        <>
          <dl className="tiles" aria-label="Totals of the period">
            <StatTile label="Sessions" value={formatNumber(totals.sessions)} to={link({})} />
            <StatTile
              label="Success rate"
              value={formatPercent(totals.successRate)}
              detail={`of ${plural(totals.completed + totals.failed, "ended session")}`}
              to={link({})}
            />
            <StatTile
              label="Failed"
              value={formatNumber(totals.failed)}
              to={link({ status: "failed" })}
              tone={totals.failed > 0 ? "alarm" : undefined}
            />
            <StatTile label="Cost" value={formatCost(costOf(totals))} to={link({})} />
            <StatTile label="Tokens" value={formatCompact(totals.totalTokens)} to={link({})} />
          </dl>
          {data.agentsWithoutStats !== undefined && data.agentsWithoutStats > 0 ? (
            <p className="notice">
              {plural(data.agentsWithoutStats, "agent")} with the fewest sessions are left out of these figures (the 100
              busiest are counted).
            </p>
          ) : null}
          <DailyFigures environment={environment} from={from} to={to} days={data.days ?? []} />
          <div className="ranked-grid ranked-grid--two">
            <AgentRanking
              title="Agents by failures"
              agents={data.items}
              environment={environment}
              from={from}
              to={to}
              by="failures"
            />
            <AgentRanking
              title="Agents by cost"
              agents={data.items}
              environment={environment}
              from={from}
              to={to}
              by="cost"
            />
          </div>
          <CostByModel query={models} environment={environment} scope="all agents" />
        </>
      ) : null}
      {data !== undefined && data.items.length > 0 ? (
        <LatestFailures
          query={latestFailed}
          environment={environment}
          allFailed={sessionsLink({ status: "failed" }, environment)}
        />
      ) : null}
    </>
  );
}

function DailyFigures({
  environment,
  from,
  to,
  days,
}: {
  environment: Environment;
  from: string;
  to: string;
  days: readonly DayStats[];
}) {
  const series = dailySeries({ from, to, days });
  const rate = (point: DayPoint) => formatPercent(point.successRate === null ? null : point.successRate / 100);
  return (
    <>
      <div className="charts">
        <DayBars
          title="Sessions per day"
          series={series}
          value={(point) => point.sessions}
          alarm={(point) => point.failed}
          format={formatCompact}
          describe={(point) => `${plural(point.sessions, "session")}, ${formatNumber(point.failed)} failed`}
        />
        <DayBars
          title="Success rate per day"
          series={series}
          value={(point) => point.successRate ?? 0}
          zeroIsAlarm={(point) => point.successRate === 0}
          format={(value) => `${Math.round(value)}%`}
          describe={(point) => (point.successRate === null ? "no session ended" : `success rate ${rate(point)}`)}
          tone="success"
        />
        <DayBars
          title="Cost per day"
          series={series}
          value={(point) => point.cost}
          format={formatCost}
          describe={(point) => `cost ${formatCost(point.cost)}`}
          tone="cost"
        />
        <DayBars
          title="Tokens per day"
          series={series}
          value={(point) => point.tokens}
          format={formatCompact}
          describe={(point) => `${formatNumber(point.tokens)} tokens`}
          tone="tokens"
        />
      </div>
      <details className="per-day">
        <summary>Figures per day</summary>
        <div className="table-scroll">
          <table className="table table--compact">
            <caption className="visually-hidden">Figures per day, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" className="num">
                  Sessions
                </th>
                <th scope="col" className="num">
                  Failed
                </th>
                <th scope="col" className="num">
                  Success rate
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col" className="num">
                  Tokens
                </th>
              </tr>
            </thead>
            <tbody>
              {[...series].reverse().map((point) => (
                <tr key={point.day}>
                  <th scope="row">
                    <Link
                      to={sessionsLink({ from: point.day, to: point.day }, environment)}
                      aria-label={`${formatDay(point.day)}: ${plural(point.sessions, "session")}`}
                    >
                      {formatDay(point.day)}
                    </Link>
                  </th>
                  <td className="num">{formatNumber(point.sessions)}</td>
                  <td className="num">{formatNumber(point.failed)}</td>
                  <td className="num">{rate(point)}</td>
                  <td className="num">{formatCost(point.cost)}</td>
                  <td className="num">{formatNumber(point.tokens)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}
