/**
 * Conversations: the environment's conversations, newest first by their first run's start, filtered by agent, user
 * and UTC days (in the URL), 25 at a time; each opens its conversation page.
 */
import { type FormEvent, useId, useState } from "react";
import { useSearchParams } from "react-router";
import { useAgents } from "../../api/agents";
import { useConversations } from "../../api/conversations";
import type { Environment } from "../../api/types";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import {
  CONVERSATION_FILTERS,
  type ConversationFilterValues,
  NO_CONVERSATION_FILTERS,
  readConversationFilters,
  toConversationApiFilters,
  writeConversationFilters,
} from "../../lib/conversation-filters";
import { useEnvironment } from "../../lib/environment";
import { plural } from "../../lib/format";
import { ConversationsTable } from "./ConversationsTable";

export function ConversationsPage() {
  const [params, setParams] = useSearchParams();
  const [environment] = useEnvironment();
  const values = readConversationFilters(params);
  const apply = (next: Partial<ConversationFilterValues>) =>
    setParams((current) => writeConversationFilters(current, next));
  return (
    <>
      <div className="page__header">
        <h1>Conversations</h1>
      </div>
      <p className="muted">
        Runs that named the same conversation id, newest conversation first (by its first run's start).
      </p>
      <ConversationFiltersForm environment={environment} values={values} onApply={apply} />
      <ConversationList environment={environment} values={values} />
    </>
  );
}

function ConversationFiltersForm({
  environment,
  values,
  onApply,
}: {
  environment: Environment;
  values: ConversationFilterValues;
  onApply: (values: Partial<ConversationFilterValues>) => void;
}) {
  const agents = useAgents(environment);
  const [draft, setDraft] = useState(values);
  const [lastValues, setLastValues] = useState(values);
  const agentListId = useId();
  if (CONVERSATION_FILTERS.some((name) => lastValues[name] !== values[name])) {
    // The URL changed (back button, a link): show what it says.
    setLastValues(values);
    setDraft(values);
  }
  const set = (name: keyof ConversationFilterValues) => (event: { target: { value: string } }) =>
    setDraft({ ...draft, [name]: event.target.value });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onApply(draft);
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Conversation filters">
      <label className="field">
        <span>Agent</span>
        <input value={draft.agentName} onChange={set("agentName")} list={agentListId} autoComplete="off" />
        <datalist id={agentListId}>
          {agents.data?.map((agent) => (
            <option key={agent.agentName} value={agent.agentName} />
          ))}
        </datalist>
      </label>
      <label className="field">
        <span>User</span>
        <input value={draft.userId} onChange={set("userId")} autoComplete="off" />
      </label>
      <label className="field">
        <span>From (UTC day)</span>
        <input type="date" value={draft.from} onChange={set("from")} />
      </label>
      <label className="field">
        <span>To (UTC day)</span>
        <input type="date" value={draft.to} onChange={set("to")} />
      </label>
      <div className="filters__actions">
        <button type="submit" className="button button--primary">
          Apply filters
        </button>
        <button type="button" className="button" onClick={() => onApply(NO_CONVERSATION_FILTERS)}>
          Clear filters
        </button>
      </div>
    </form>
  );
}

function ConversationList({ environment, values }: { environment: Environment; values: ConversationFilterValues }) {
  const conversations = useConversations(environment, toConversationApiFilters(values));
  const items = conversations.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = CONVERSATION_FILTERS.some((name) => values[name] !== "");
  return (
    <>
      {conversations.isPending ? <Loading label="Loading conversations…" /> : null}
      {conversations.isError && items.length === 0 ? (
        <ErrorState error={conversations.error} onRetry={() => conversations.refetch()} />
      ) : null}
      {conversations.isSuccess && items.length === 0 ? (
        <EmptyState
          title={filtered ? "No conversations match these filters." : `No conversations in ${environment} yet.`}
        >
          {filtered
            ? "Widen the days or clear the filters."
            : "A run that names a conversationId when it starts is a turn of that conversation."}
        </EmptyState>
      ) : null}
      {items.length > 0 ? <ConversationsTable conversations={items} environment={environment} /> : null}
      {conversations.hasNextPage ? (
        <div className="load-more">
          <button
            type="button"
            className="button"
            onClick={() => conversations.fetchNextPage()}
            disabled={conversations.isFetchingNextPage}
          >
            {conversations.isFetchingNextPage ? "Loading…" : "Load more conversations"}
          </button>
        </div>
      ) : null}
      {conversations.isFetchNextPageError ? <InlineError error={conversations.error} /> : null}
      <p className="muted" role="status">
        {conversations.isSuccess && !conversations.isFetchingNextPage
          ? `${plural(items.length, "conversation")} shown`
          : ""}
      </p>
    </>
  );
}
