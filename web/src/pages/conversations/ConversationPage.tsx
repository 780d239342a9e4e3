/**
 * One conversation: its totals, its scores (its own, given here as on a session's page, and the figures per name with
 * its runs'), then its runs as turns in the order they started; each turn opens its session (the run's waterfall and
 * events).
 */
import { Link, useParams } from "react-router";
import { useConversation } from "../../api/conversations";
import type { ConversationTotals, Session } from "../../api/types";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { formatCost, formatDateTime, formatDuration, formatNumber, plural } from "../../lib/format";
import { ConversationScores } from "./ConversationScores";

function Totals({ totals }: { totals: ConversationTotals }) {
  const metrics: [string, string][] = [
    ["Runs", formatNumber(totals.runs)],
    ["Failed", formatNumber(totals.failed)],
    ["Cost", formatCost(totals.estimatedCost)],
    ["Tokens", formatNumber(totals.totalTokens)],
    ["Duration", formatDuration(totals.durationMs)],
  ];
  return (
    <section aria-label="Conversation totals" className="metrics-section">
      <dl className="metrics">
        {metrics.map(([label, value]) => (
          <div className="metric" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {totals.complete ? null : (
        <p className="muted" role="note">
          Totals of the first {plural(totals.runs, "run")} only.
        </p>
      )}
    </section>
  );
}

function Turn({ run }: { run: Session }) {
  const [environment] = useEnvironment();
  return (
    <li className="turn">
      <Link to={withEnvironment(`/sessions/${encodeURIComponent(run.id)}`, environment)}>{run.name}</Link>{" "}
      <StatusBadge status={run.status} /> <span className="muted">{formatDateTime(run.createdAt)}</span>{" "}
      <span>{formatCost(run.estimatedCost)}</span> <span>{formatDuration(run.durationMs)}</span>
      {run.failureReason === null ? null : <span className="failure"> {run.failureReason}</span>}
    </li>
  );
}

export function ConversationPage() {
  const { id = "" } = useParams();
  const [environment] = useEnvironment();
  const conversation = useConversation(environment, id);
  const pages = conversation.data?.pages ?? [];
  const first = pages[0];
  const runs = pages.flatMap((page) => page.runs);
  return (
    <>
      <p>
        <Link to={withEnvironment("/conversations", environment)}>← All conversations</Link>
      </p>
      {conversation.isPending ? <Loading label="Loading the conversation…" /> : null}
      {conversation.isError && first === undefined ? (
        <>
          <h1>Conversation</h1>
          <ErrorState error={conversation.error} onRetry={() => conversation.refetch()} />
        </>
      ) : null}
      {first === undefined ? null : (
        <>
          <div className="page__header">
            <h1>Conversation {first.id}</h1>
          </div>
          <p className="muted">
            {first.agentName} with {first.userId}, started {formatDateTime(first.startedAt)}; last run{" "}
            {formatDateTime(first.lastRunAt)}.
          </p>
          {first.totals === null ? null : <Totals totals={first.totals} />}
          <ConversationScores conversationId={first.id} totals={first.totals} />
          <section aria-labelledby="turns-heading" className="section">
            <h2 id="turns-heading">Turns</h2>
            <ol className="turns" aria-label="Turns">
              {runs.map((run) => (
                <Turn key={run.id} run={run} />
              ))}
            </ol>
          </section>
          {conversation.hasNextPage ? (
            <div className="load-more">
              <button
                type="button"
                className="button"
                onClick={() => conversation.fetchNextPage()}
                disabled={conversation.isFetchingNextPage}
              >
                {conversation.isFetchingNextPage ? "Loading…" : "Load more turns"}
              </button>
            </div>
          ) : null}
          {conversation.isFetchNextPageError ? <InlineError error={conversation.error} /> : null}
        </>
      )}
    </>
  );
}
