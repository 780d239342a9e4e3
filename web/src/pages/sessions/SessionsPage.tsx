/** Sessions: filters in the URL, newest first, "Load more" paging, per environment. */
import { useSearchParams } from "react-router";
import { useSessions } from "../../api/sessions";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment } from "../../lib/environment";
import { type FilterValues, readFilters, toApiFilters, writeFilters } from "../../lib/session-filters";
import { SessionFiltersForm } from "./SessionFiltersForm";
import { SessionsTable } from "./SessionsTable";

export function SessionsPage() {
  const [params, setParams] = useSearchParams();
  const [environment] = useEnvironment();
  const values = readFilters(params);
  const sessions = useSessions(environment, toApiFilters(values));
  const items = sessions.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = Object.values(values).some((value) => value !== "");
  const apply = (next: FilterValues) => setParams((current) => writeFilters(current, next));

  return (
    <>
      <div className="page__header">
        <h1>Sessions</h1>
      </div>
      <SessionFiltersForm environment={environment} values={values} onApply={apply} />
      {sessions.isPending ? <Loading label="Loading sessions…" /> : null}
      {sessions.isError ? <ErrorState error={sessions.error} onRetry={() => sessions.refetch()} /> : null}
      {sessions.isSuccess && items.length === 0 ? (
        <EmptyState title={filtered ? "No sessions match these filters." : `No sessions in ${environment} yet.`}>
          {filtered
            ? "Widen the time range or clear the filters."
            : "Record one with the SDK (or npm run demo locally) and it shows up here."}
        </EmptyState>
      ) : null}
      {items.length > 0 ? <SessionsTable sessions={items} environment={environment} /> : null}
      {sessions.hasNextPage ? (
        <div className="load-more">
          <button
            type="button"
            className="button"
            onClick={() => sessions.fetchNextPage()}
            disabled={sessions.isFetchingNextPage}
          >
            {sessions.isFetchingNextPage ? "Loading…" : "Load more sessions"}
          </button>
        </div>
      ) : null}
      {sessions.isFetchNextPageError ? <InlineError error={sessions.error} /> : null}
      <p className="muted" role="status">
        {sessions.isSuccess ? `${items.length} session${items.length === 1 ? "" : "s"} shown` : ""}
      </p>
    </>
  );
}
