/**
 * An agent's scores over the period: one chart per score name (as many as the stats answer, and said so when they
 * left names out). Numbers as the daily mean, yes/no as the daily % true, labels as the daily mix in stacked bars
 * with a legend; each chart has its figures per day as a table, and links to the sessions with that score.
 */
import { Link } from "react-router";
import type { AgentStats, Environment } from "../../api/types";
import { EmptyState } from "../../components/EmptyState";
import { plural } from "../../lib/format";
import { formatMean, formatTrueShare } from "../../lib/score-figures";
import { labelMixSeries, type ScoreNameStats, scoreChartKind, scoreMeanSeries } from "../../lib/score-series";
import { sessionsLink } from "../../lib/session-filters";
import { LabelMixChart } from "./ScoreLabelMixChart";
import { MeanChart } from "./ScoreMeanChart";

export function ScoreCharts({ stats, environment }: { stats: AgentStats; environment: Environment }) {
  return (
    <section className="section" aria-labelledby="agent-scores-heading">
      <h2 id="agent-scores-heading">Scores</h2>
      {stats.scores.length === 0 ? (
        <EmptyState title="No scores in this period." />
      ) : (
        <>
          {stats.scoresTruncated ? (
            <p className="muted" role="note">
              The {stats.scores.length} most given score names; this agent has more in this period, not shown.
            </p>
          ) : null}
          <div className="charts">
            {stats.scores.map((score) => (
              <ScoreChart key={score.name} score={score} stats={stats} environment={environment} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}

function ScoreChart({
  score,
  stats,
  environment,
}: {
  score: ScoreNameStats;
  stats: AgentStats;
  environment: Environment;
}) {
  const kind = scoreChartKind(score);
  const sessions = sessionsLink(
    { agentName: stats.agentName, from: stats.from, to: stats.to, scoreName: score.name },
    environment,
  );
  const summary =
    kind === "numeric"
      ? `${plural(score.numeric?.count ?? 0, "score")}, mean ${formatMean(score.numeric?.mean ?? 0)}`
      : kind === "boolean"
        ? `${plural(score.boolean?.count ?? 0, "score")}, ${formatTrueShare(score.boolean?.trueShare ?? 0)}`
        : `${plural(score.count, "score")}`;
  const title = `${score.name}: ${kind === "numeric" ? "mean per day" : kind === "boolean" ? "% true per day" : "labels per day"}`;
  return (
    <figure className="chart">
      <figcaption className="chart__title">
        {title}
        <span className="chart__summary muted">
          {summary} · <Link to={sessions}>sessions with this score</Link>
        </span>
      </figcaption>
      {kind === "categorical" ? (
        <LabelMixChart mix={labelMixSeries(score, stats.from, stats.to)} title={title} />
      ) : (
        <MeanChart points={scoreMeanSeries(score, kind, stats.from, stats.to)} kind={kind} title={title} />
      )}
    </figure>
  );
}
