/**
 * One session: its outcome and figures, its scores, the run as a waterfall, then its events as cards (each with its
 * scores); members score the session and its steps, admins may delete it.
 */
import { type ReactNode, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useScoreConfigs, useSessionScores } from "../../api/scores";
import { useDeleteSession, useSession, useSessionEvents } from "../../api/sessions";
import type { Score, Session, SessionEvent } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { eventTitle } from "../../components/event-labels";
import { Loading } from "../../components/Loading";
import { ScoreBox } from "../../components/scores/ScoreBox";
import { ScoresSection } from "../../components/scores/ScoresSection";
import { Timeline } from "../../components/Timeline";
import { Waterfall } from "../../components/Waterfall";
import { useEnvironment, withEnvironment } from "../../lib/environment";
import { plural } from "../../lib/format";
import { buildTimeline } from "../../lib/timeline";
import { SessionMetrics } from "./SessionMetrics";

function Events({ session, eventFooter }: { session: Session; eventFooter: (event: SessionEvent) => ReactNode }) {
  const [environment] = useEnvironment();
  const events = useSessionEvents(environment, session.id);
  const items = events.data?.pages.flatMap((page) => page.items) ?? [];
  const entries = buildTimeline(items, session.createdAt);
  return (
    <>
      {events.isPending ? <Loading label="Loading events…" /> : null}
      {events.isError && items.length === 0 ? (
        <ErrorState error={events.error} onRetry={() => events.refetch()} />
      ) : null}
      {events.isSuccess && items.length === 0 ? <EmptyState title="This session has no events yet." /> : null}
      {entries.length > 0 ? (
        <>
          <section aria-labelledby="waterfall-heading" className="section">
            <div className="section__header">
              <h2 id="waterfall-heading">Run</h2>
              <p className="muted">
                {plural(entries.length, "event")}
                {events.hasNextPage ? " so far" : ""}; bars are steps with a recorded duration.
              </p>
            </div>
            <Waterfall entries={entries} session={session} />
          </section>
          <section aria-labelledby="events-heading" className="section">
            <h2 id="events-heading">Events</h2>
            <Timeline entries={entries} eventFooter={eventFooter} />
          </section>
        </>
      ) : null}
      {events.hasNextPage ? (
        <div className="load-more">
          <button
            type="button"
            className="button"
            onClick={() => events.fetchNextPage()}
            disabled={events.isFetchingNextPage}
          >
            {events.isFetchingNextPage ? "Loading…" : "Load more events"}
          </button>
        </div>
      ) : null}
      {events.isFetchNextPageError ? <InlineError error={events.error} /> : null}
    </>
  );
}

/** The session's scores and its events, each step's scores on its card: one read of the scores for both. */
function Scored({ session }: { session: Session }) {
  const [environment] = useEnvironment();
  const scores = useSessionScores(environment, session.id);
  const configs = useScoreConfigs();
  const loaded = scores.data?.pages.flatMap((page) => page.items) ?? [];
  const own = loaded.filter((score) => score.eventId === null);
  const byEvent = new Map<string, Score[]>();
  for (const score of loaded) {
    if (score.eventId !== null) byEvent.set(score.eventId, [...(byEvent.get(score.eventId) ?? []), score]);
  }
  const configList = configs.data ?? [];
  const eventFooter = (event: SessionEvent) =>
    scores.data === undefined ? null : (
      <div className="event-scores">
        <h3 className="payload__label">Scores</h3>
        <ScoreBox
          environment={environment}
          target={{ kind: "session", sessionId: session.id, eventId: event.id }}
          targetName={eventTitle(event)}
          scores={byEvent.get(event.id) ?? []}
          configs={configList}
          giveLabel="Label this step"
        />
      </div>
    );
  return (
    <>
      <ScoresSection
        environment={environment}
        target={{ kind: "session", sessionId: session.id }}
        targetName="this session"
        query={scores}
        scores={own}
        configs={configList}
        elsewhere="a step's scores are on its card"
      />
      <Events session={session} eventFooter={eventFooter} />
    </>
  );
}

export function SessionDetailPage() {
  const { id = "" } = useParams();
  const [environment] = useEnvironment();
  const { role } = useOrganisation();
  const session = useSession(environment, id);
  const remove = useDeleteSession(environment);
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const back = withEnvironment("/sessions", environment);
  return (
    <>
      <p>
        <Link to={back}>← All sessions</Link>
      </p>
      {session.isPending ? <Loading label="Loading the session…" /> : null}
      {session.isError ? (
        <>
          <h1>Session</h1>
          <ErrorState error={session.error} onRetry={() => session.refetch()} />
        </>
      ) : null}
      {session.data === undefined ? null : (
        <>
          <div className="page__header">
            <h1>{session.data.name}</h1>
            {hasRole(role, "admin") ? (
              <button type="button" className="button button--danger" onClick={() => setConfirming(true)}>
                Delete session
              </button>
            ) : null}
          </div>
          {session.data.conversationId === null ? null : (
            <p>
              A turn of{" "}
              <Link
                to={withEnvironment(`/conversations/${encodeURIComponent(session.data.conversationId)}`, environment)}
              >
                conversation {session.data.conversationId}
              </Link>
            </p>
          )}
          <SessionMetrics session={session.data} />
          <Scored session={session.data} />
          {confirming ? (
            <ConfirmDialog
              title="Delete this session?"
              confirmLabel="Delete session"
              onCancel={() => {
                remove.reset();
                setConfirming(false);
              }}
              onConfirm={() => remove.mutate(id, { onSuccess: () => navigate(back, { replace: true }) })}
              pending={remove.isPending}
              error={remove.error}
            >
              <p>
                “{session.data.name}”, its {plural(session.data.eventCount, "event")} and its share of the agent's stats
                are deleted for good.
              </p>
            </ConfirmDialog>
          ) : null}
        </>
      )}
    </>
  );
}
