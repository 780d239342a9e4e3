/** One agent's stats over a selectable period: per-day charts, duration percentiles, failures and tools. */
import { Link, useParams, useSearchParams } from "react-router";
import { useAgentStats } from "../../api/agents";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatCompact, formatCost, formatDuration, formatNumber, formatPercent } from "../../lib/format";
import { dailySeries, PERIODS, parsePeriod, periodRange } from "../../lib/stats-period";
import { DailyChart } from "./DailyChart";
import { RankedList } from "./RankedList";

/** Cost ticks with one precision for the whole axis (4 decimals under a cent). */
function formatAxisCost(value: number): string {
  return `$${value.toFixed(Math.abs(value) >= 1 ? 2 : value === 0 ? 2 : 4)}`;
}

function atMost(ms: number | null): string {
  return ms === null ? "—" : `≤ ${formatDuration(ms)}`;
}

export function AgentDetailPage() {
  const { name = "" } = useParams();
  const [environment] = useEnvironment();
  const [params, setParams] = useSearchParams();
  const days = parsePeriod(params.get("days"));
  const { from, to } = periodRange(days);
  const stats = useAgentStats(environment, name, from, to);
  // One series for the four charts (every day of the period, empty days filled).
  const series = stats.data === undefined ? [] : dailySeries(stats.data);
  const setDays = (value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set("days", value);
      return next;
    });
  return (
    <>
      <p>
        <Link to={withEnvironment("/agents", environment)}>← All agents</Link>
      </p>
      <div className="page__header">
        <h1>{name}</h1>
        <label className="field field--inline">
          <span>Period</span>
          <select value={days} onChange={(event) => setDays(event.target.value)}>
            {PERIODS.map((value) => (
              <option key={value} value={value}>
                Last {value} days
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted">
        {from} to {to} (UTC days). Sessions count on the day they started; their outcome once they end.
      </p>
      {stats.isPending ? <Loading label="Loading stats…" /> : null}
      {stats.isError ? <ErrorState error={stats.error} onRetry={() => stats.refetch()} /> : null}
      {stats.data !== undefined && stats.data.totals.sessions === 0 ? (
        <EmptyState title="No sessions of this agent in this period.">Choose a longer period.</EmptyState>
      ) : null}
      {stats.data !== undefined && stats.data.totals.sessions > 0 ? (
        <>
          <dl className="metrics">
            <div className="metric">
              <dt>Sessions</dt>
              <dd>{formatNumber(stats.data.totals.sessions)}</dd>
            </div>
            <div className="metric">
              <dt>Success rate</dt>
              <dd>{formatPercent(stats.data.totals.successRate)}</dd>
            </div>
            <div className="metric">
              <dt>Cost</dt>
              <dd>{formatCost(stats.data.totals.reportedCost || stats.data.totals.eventCost)}</dd>
            </div>
            <div className="metric">
              <dt>Tokens</dt>
              <dd>{formatCompact(stats.data.totals.totalTokens)}</dd>
            </div>
            <div className="metric">
              <dt>Duration mean</dt>
              <dd>{formatDuration(stats.data.totals.durationMs.mean)}</dd>
            </div>
            {/* The service keeps durations in histogram buckets: a percentile is its bucket's upper bound. */}
            <div className="metric" title="Upper bound of the duration bucket holding the median">
              <dt>Duration p50</dt>
              <dd>{atMost(stats.data.totals.durationMs.p50)}</dd>
            </div>
            <div className="metric" title="Upper bound of the duration bucket holding the 95th percentile">
              <dt>Duration p95</dt>
              <dd>{atMost(stats.data.totals.durationMs.p95)}</dd>
            </div>
          </dl>
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
              format={formatAxisCost}
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
          <div className="ranked-grid">
            <RankedList
              title="Top failure reasons"
              countLabel="Sessions"
              empty="No failures in this period."
              rows={stats.data.topFailureReasons.map((row) => ({ label: row.reason, count: row.count }))}
            />
            <RankedList
              title="Top tools by calls"
              countLabel="Calls"
              empty="No tool calls in this period."
              rows={stats.data.topToolsByCalls.map((row) => ({ label: row.toolName, count: row.calls }))}
            />
            <RankedList
              title="Top tools by errors"
              countLabel="Errors"
              empty="No tool errors in this period."
              rows={stats.data.topToolsByErrors.map((row) => ({ label: row.toolName, count: row.errors }))}
            />
          </div>
        </>
      ) : null}
    </>
  );
}
