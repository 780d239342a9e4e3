/**
 * Search (a name or a session id), agent (suggesting the environment's agents), user, status, UTC days and a score
 * condition; applied to the URL on submit. On a phone the form folds away behind a "Filters" button.
 */
import { type FormEvent, useId, useState } from "react";
import { useAgents } from "../../api/agents";
import { type Environment, SESSION_STATUSES } from "../../api/types";
import {
  type FilterValues,
  FORM_FILTERS,
  NO_FILTERS,
  SCORE_FILTERS,
  type ScoreCondition,
  scoreConditionOf,
} from "../../lib/session-filters";
import { ScoreFilterFields } from "./ScoreFilterFields";

export interface SessionFiltersFormProps {
  environment: Environment;
  values: FilterValues;
  onApply: (values: Partial<FilterValues>) => void;
}

type FormValues = Pick<FilterValues, (typeof FORM_FILTERS)[number]>;

function formValues(values: FilterValues): FormValues {
  return Object.fromEntries(FORM_FILTERS.map((name) => [name, values[name]])) as FormValues;
}

function sameValues(a: FormValues, b: FormValues): boolean {
  return FORM_FILTERS.every((name) => a[name] === b[name]);
}

export function SessionFiltersForm({ environment, values, onApply }: SessionFiltersFormProps) {
  const agents = useAgents(environment);
  const current = formValues(values);
  const [draft, setDraft] = useState(current);
  const [lastValues, setLastValues] = useState(current);
  const [condition, setCondition] = useState<ScoreCondition>(scoreConditionOf(current));
  const [open, setOpen] = useState(false);
  const agentListId = useId();
  const formId = useId();
  // Compared by content: the page builds a new `values` object on every render, and a re-render while the list
  // loads must not wipe what is being typed.
  if (!sameValues(lastValues, current)) {
    // The URL changed (back button, a link): show what it says.
    setLastValues(current);
    setDraft(current);
    setCondition(scoreConditionOf(current));
  }
  const set = (name: keyof FormValues) => (event: { target: { value: string } }) =>
    setDraft({ ...draft, [name]: event.target.value });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onApply(draft);
  }
  // A score condition counts as one filter, however many of its parameters it sets.
  const active =
    FORM_FILTERS.filter((name) => current[name] !== "" && !SCORE_FILTERS.some((score) => score === name)).length +
    (current.scoreName === "" ? 0 : 1);
  return (
    <div className={`filters-panel${open ? " filters-panel--open" : ""}`}>
      <button
        type="button"
        className="button filters-panel__toggle"
        aria-expanded={open}
        aria-controls={formId}
        onClick={() => setOpen(!open)}
      >
        {open ? "Hide filters" : `Filters${active === 0 ? "" : ` (${active})`}`}
      </button>
      <form id={formId} className="filters" onSubmit={submit} aria-label="Session filters">
        <label className="field field--search">
          <span>Search</span>
          <input
            type="search"
            value={draft.q}
            onChange={set("q")}
            placeholder="Name or session id"
            autoComplete="off"
          />
        </label>
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
          <span>From (UTC day)</span>
          <input type="date" value={draft.from} onChange={set("from")} />
        </label>
        <label className="field">
          <span>To (UTC day)</span>
          <input type="date" value={draft.to} onChange={set("to")} />
        </label>
        <ScoreFilterFields
          values={draft}
          condition={condition}
          onChange={(score, chosen) => {
            setDraft({ ...draft, ...score });
            setCondition(chosen);
          }}
        />
        <div className="filters__actions">
          <button type="submit" className="button button--primary">
            Apply filters
          </button>
          <button type="button" className="button" onClick={() => onApply(NO_FILTERS)}>
            Clear filters
          </button>
        </div>
      </form>
    </div>
  );
}
