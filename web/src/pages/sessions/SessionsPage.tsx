/**
 * Sessions: filters in the URL, newest first, "Load more" paging, per environment. A search for a session id opens
 * that session; a drill-down from the stats (a failure reason, a tool) shows as a removable chip.
 */
import { useEffect, useRef } from "react";
import { useSearchParams } from "react-router";
import { isApiError } from "../../api/errors";
import { SESSION_PAGE_SIZE, useSession, useSessions } from "../../api/sessions";
import type { Environment } from "../../api/types";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment } from "../../lib/environment";
import { plural } from "../../lib/format";
import {
  DRILL_DOWN_FILTERS,
  describeScoreFilter,
  type FilterValues,
  readFilters,
  SCORE_FILTERS,
  sessionIdIn,
  toApiFilters,
  writeFilters,
} from "../../lib/session-filters";
import { NoSessionsYet } from "./NoSessionsYet";
import { SessionFiltersForm } from "./SessionFiltersForm";
import { SessionsTable } from "./SessionsTable";

const NO_SCORE_FILTER = Object.fromEntries(SCORE_FILTERS.map((name) => [name, ""])) as Partial<FilterValues>;

const DRILL_DOWN_LABELS: Record<(typeof DRILL_DOWN_FILTERS)[number], string> = {
  failureReason: "Failure reason",
  toolName: "Called tool",
  toolError: "Error in tool",
};

/**
 * Pages a refined listing (a drill-down, a search) reads on its own before asking: its pages can come back short,
 * even empty, while older sessions remain.
 */
const AUTOMATIC_PAGES = 8;

export function SessionsPage() {
  const [params, setParams] = useSearchParams();
  const [environment] = useEnvironment();
  const values = readFilters(params);
  const apply = (next: Partial<FilterValues>) => setParams((current) => writeFilters(current, next));
  const sessionId = sessionIdIn(values.q);
  return (
    <>
      <div className="page__header">
        <h1>Sessions</h1>
      </div>
      <SessionFiltersForm environment={environment} values={values} onApply={apply} />
      <DrillDownChips
        values={values}
        onRemove={(name) => apply({ [name]: "" })}
        onRemoveScore={() => apply(NO_SCORE_FILTER)}
      />
      {sessionId === undefined ? (
        <SessionList environment={environment} values={values} />
      ) : (
        <SessionById environment={environment} id={sessionId} />
      )}
    </>
  );
}

function DrillDownChips({
  values,
  onRemove,
  onRemoveScore,
}: {
  values: FilterValues;
  onRemove: (name: (typeof DRILL_DOWN_FILTERS)[number]) => void;
  onRemoveScore: () => void;
}) {
  const shown = DRILL_DOWN_FILTERS.filter((name) => values[name] !== "");
  const scored = SCORE_FILTERS.some((name) => values[name] !== "");
  if (shown.length === 0 && !scored) return null;
  const score = describeScoreFilter(values);
  return (
    <ul className="filter-chips" aria-label="Also filtered by">
      {shown.map((name) => (
        <li key={name} className="filter-chip">
          <span className="filter-chip__text">
            {DRILL_DOWN_LABELS[name]}: <strong>{values[name]}</strong>
          </span>
          <button
            type="button"
            className="filter-chip__remove"
            onClick={() => onRemove(name)}
            aria-label={`Remove the filter ${DRILL_DOWN_LABELS[name]}: ${values[name]}`}
          >
            ×
          </button>
        </li>
      ))}
      {scored ? (
        <li className="filter-chip">
          <span className="filter-chip__text">
            Score: <strong>{score}</strong>
          </span>
          <button
            type="button"
            className="filter-chip__remove"
            onClick={onRemoveScore}
            aria-label={`Remove the score filter ${score}`}
          >
            ×
          </button>
        </li>
      ) : null}
    </ul>
  );
}

function SessionById({ environment, id }: { environment: Environment; id: string }) {
  const session = useSession(environment, id);
  if (session.isPending) return <Loading label="Looking the session up…" />;
  if (session.isError) {
    return isApiError(session.error, 404) ? (
      <EmptyState title={`No session ${id} in ${environment}.`}>
        Check the id, or the environment: a session of the other environment is not found here.
      </EmptyState>
    ) : (
      <ErrorState error={session.error} onRetry={() => session.refetch()} />
    );
  }
  return <SessionsTable sessions={[session.data]} environment={environment} caption={`Session ${id}`} />;
}

function SessionList({ environment, values }: { environment: Environment; values: FilterValues }) {
  const filters = toApiFilters(values);
  const sessions = useSessions(environment, filters);
  const items = sessions.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = Object.values(values).some((value) => value !== "");
  // A search, a drill-down or a score condition refines the index's pages: they may come back short.
  const refined =
    filters.nameContains !== undefined ||
    DRILL_DOWN_FILTERS.some((name) => filters[name] !== undefined) ||
    filters.scoreName !== undefined;
  const pagesRead = sessions.data?.pages.length ?? 0;
  const readOn = useRef(0);
  // A refined listing reads on by itself while its pages come back short, so a drill-down lands on its sessions.
  useEffect(() => {
    if (!refined || !sessions.hasNextPage || sessions.isFetchingNextPage || sessions.isFetchNextPageError) return;
    const wanted = SESSION_PAGE_SIZE * Math.max(1, readOn.current);
    if (items.length >= wanted || pagesRead >= AUTOMATIC_PAGES * Math.max(1, readOn.current)) return;
    void sessions.fetchNextPage();
  });
  const loadMore = () => {
    readOn.current = Math.max(1, readOn.current) + 1;
    void sessions.fetchNextPage();
  };
  const searching = refined && sessions.hasNextPage && items.length < SESSION_PAGE_SIZE;
  return (
    <>
      {sessions.isPending ? <Loading label="Loading sessions…" /> : null}
      {sessions.isError && items.length === 0 ? (
        <ErrorState error={sessions.error} onRetry={() => sessions.refetch()} />
      ) : null}
      {sessions.isSuccess && items.length === 0 && !sessions.hasNextPage ? (
        filtered ? (
          <EmptyState title="No sessions match these filters.">Widen the days or clear the filters.</EmptyState>
        ) : (
          <NoSessionsYet environment={environment} />
        )
      ) : null}
      {items.length > 0 ? (
        <SessionsTable sessions={items} environment={environment} caption={`Sessions (${environment}), newest first`} />
      ) : null}
      {sessions.hasNextPage ? (
        <div className="load-more">
          <button type="button" className="button" onClick={loadMore} disabled={sessions.isFetchingNextPage}>
            {sessions.isFetchingNextPage ? "Loading…" : searching ? "Search older sessions" : "Load more sessions"}
          </button>
        </div>
      ) : null}
      {sessions.isFetchNextPageError ? <InlineError error={sessions.error} /> : null}
      <p className="muted" role="status">
        {sessions.isSuccess && !sessions.isFetchingNextPage ? `${plural(items.length, "session")} shown` : ""}
      </p>
    </>
  );
}
