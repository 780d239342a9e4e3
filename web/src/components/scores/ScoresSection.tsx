/**
 * The "Scores" section of a session's or a conversation's page: the target's own scores (a step's are on its card, a
 * run's on its session's page), paged, in a ScoreBox where a member gives, edits and deletes theirs.
 */
import type { ReactNode } from "react";
import type { ScorePagesQuery, ScoreTarget } from "../../api/scores";
import type { Environment, Score, ScoreConfig } from "../../api/types";
import { plural } from "../../lib/format";
import { ErrorState, InlineError } from "../ErrorState";
import { Loading } from "../Loading";
import { ScoreBox } from "./ScoreBox";

export interface ScoresSectionProps {
  environment: Environment;
  target: ScoreTarget;
  /** The target in words: "this session", "this conversation". */
  targetName: string;
  query: ScorePagesQuery;
  /** The target's own scores, as loaded so far (a session's without its steps'). */
  scores: readonly Score[];
  configs: readonly ScoreConfig[];
  /** Where the other scores are, after the count: "a step's scores are on its card". */
  elsewhere: string;
  /** What follows the target's own scores: a conversation's figures per name, its runs' scores among them. */
  children?: ReactNode;
}

export function ScoresSection({
  environment,
  target,
  targetName,
  query,
  scores,
  configs,
  elsewhere,
  children,
}: ScoresSectionProps) {
  const noun = target.kind === "session" ? "session" : "conversation";
  return (
    <section aria-labelledby="scores-heading" className="section">
      <div className="section__header">
        <h2 id="scores-heading">Scores</h2>
        {query.isSuccess ? (
          <p className="muted">
            {scores.length === 0 ? `None of the ${noun} yet` : plural(scores.length, "score")}
            {query.hasNextPage ? " so far" : ""}; {elsewhere}.
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
          target={target}
          targetName={targetName}
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
      {children}
    </section>
  );
}
