/** Agent, user, status and time range; applied to the URL on submit. */
import { type FormEvent, useId, useState } from "react";
import { useAgents } from "../../api/agents";
import { type Environment, SESSION_STATUSES } from "../../api/types";
import type { FilterValues } from "../../lib/session-filters";

export interface SessionFiltersFormProps {
  environment: Environment;
  values: FilterValues;
  onApply: (values: FilterValues) => void;
}

export function SessionFiltersForm({ environment, values, onApply }: SessionFiltersFormProps) {
  const agents = useAgents(environment);
  const [draft, setDraft] = useState(values);
  const [lastValues, setLastValues] = useState(values);
  const agentListId = useId();
  // Compared by content: the page builds a new `values` object on every render, and a re-render while the list
  // loads must not wipe what is being typed.
  if (!sameFilters(lastValues, values)) {
    // The URL changed (back button, a link): show what it says.
    setLastValues(values);
    setDraft(values);
  }
  const set = (name: keyof FilterValues) => (event: { target: { value: string } }) =>
    setDraft({ ...draft, [name]: event.target.value });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onApply(draft);
  }
  const empty: FilterValues = { agentName: "", userId: "", status: "", from: "", to: "" };
  return (
    <form className="filters" onSubmit={submit} aria-label="Session filters">
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
        <span>Status</span>
        <select value={draft.status} onChange={set("status")}>
          <option value="">Any</option>
          {SESSION_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>From</span>
        <input type="date" value={draft.from} onChange={set("from")} />
      </label>
      <label className="field">
        <span>To</span>
        <input type="date" value={draft.to} onChange={set("to")} />
      </label>
      <div className="filters__actions">
        <button type="submit" className="button button--primary">
          Apply filters
        </button>
        <button type="button" className="button" onClick={() => onApply(empty)}>
          Clear filters
        </button>
      </div>
    </form>
  );
}

function sameFilters(a: FilterValues, b: FilterValues): boolean {
  return (Object.keys(a) as (keyof FilterValues)[]).every((name) => a[name] === b[name]);
}
