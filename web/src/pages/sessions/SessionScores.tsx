/** The "Scores" section of a session page: the session's own scores (its steps' are on their cards), paged. */
import type { useSessionScores } from "../../api/scores";
import type { Environment, Score, ScoreConfig } from "../../api/types";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { ScoreBox } from "../../components/scores/ScoreBox";
import { plural } from "../../lib/format";

export function SessionScores({
  environment,
  sessionId,
  query,
  scores,
  configs,
}: {
  environment: Environment;
  sessionId: string;
  query: ReturnType<typeof useSessionScores>;
  /** The session's own scores (no event), as loaded so far. */
  scores: readonly Score[];
  configs: readonly ScoreConfig[];
}) {
  return (
    <section aria-labelledby="scores-heading" className="section">
      <div className="section__header">
        <h2 id="scores-heading">Scores</h2>
        {query.isSuccess ? (
          <p className="muted">
            {scores.length === 0 ? "None of the session yet" : plural(scores.length, "score")}
            {query.hasNextPage ? " so far" : ""}; a step's scores are on its card.
          </p>
        ) : null}
      </div>
      {query.isPending ? <Loading label="Loading scores…" /> : null}
      {query.isError && query.data === undefined ? (
        <ErrorState error={query.error} onRetry={() => query.refetch()} />
      ) : null}
      {query.data === undefined ? null : (
        <ScoreBox
          environment={environment}
          sessionId={sessionId}
          target="this session"
          scores={scores}
          configs={configs}
          giveLabel="Add a score"
        />
      )}
      {query.hasNextPage ? (
        <div className="load-more">
          <button
            type="button"
            className="button"
            onClick={() => query.fetchNextPage()}
            disabled={query.isFetchingNextPage}
          >
            {query.isFetchingNextPage ? "Loading…" : "Load more scores"}
          </button>
        </div>
      ) : null}
      {query.isFetchNextPageError ? <InlineError error={query.error} /> : null}
    </section>
  );
}
