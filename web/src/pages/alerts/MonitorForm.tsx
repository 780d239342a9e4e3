/**
 * Create or change a monitor: what it measures (metric and filters), when it fires (window, comparison, thresholds,
 * minimum samples, what no data means), whom it notifies (destinations, re-notification, recovery); the figure's
 * last 72 hours beside it, redrawn as the form changes. Mistakes are shown on their fields, the API's 400 too.
 */
import { type FormEvent, useState } from "react";
import { useAgents } from "../../api/agents";
import {
  type Comparison,
  MONITOR_METRICS,
  type Monitor,
  type MonitorMetric,
  type NoDataRule,
} from "../../api/alert-types";
import { useDestinations, useSaveMonitor } from "../../api/alerts";
import { isApiError } from "../../api/errors";
import { InlineError } from "../../components/ErrorState";
import { useEnvironment } from "../../lib/environment";
import { type FilterName, formatWindow, METRIC_FILTERS, METRICS, unitSuffix } from "../../lib/monitor-text";
import { FormField } from "./FormField";
import { MonitorPreviewPanel } from "./MonitorPreviewPanel";
import {
  type FieldErrors,
  type FieldPath,
  fieldsOf,
  issuesByField,
  type MonitorFields,
  monitorDefinition,
  previewDefinition,
} from "./monitor-form";

const FILTER_LABELS: Record<Exclude<FilterName, "agent">, { label: string; hint: string }> = {
  user: { label: "User", hint: "Only this end user's sessions (optional)." },
  model: { label: "Model", hint: "Only this model's calls (optional)." },
  tool: { label: "Tool", hint: "The tool whose calls are counted." },
  score: { label: "Score name", hint: "The score whose values are counted." },
  label: { label: "Label", hint: "The share of the score's values with this label." },
};

const NO_DATA_WORDS: Record<NoDataRule, string> = {
  keep: "Keep the state it is in",
  ok: "OK",
  alert: "Alert",
};

function AgentSelect({
  value,
  onChange,
  ...control
}: {
  value: string;
  onChange: (value: string) => void;
  id: string;
}) {
  const [environment] = useEnvironment();
  const agents = useAgents(environment);
  const names = (agents.data ?? []).map((agent) => agent.agentName);
  if (value !== "" && !names.includes(value)) names.unshift(value);
  return (
    <select {...control} value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">All agents</option>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}

function DestinationChoices({
  chosen,
  onChange,
  error,
}: {
  chosen: readonly string[];
  onChange: (ids: string[]) => void;
  error: string | undefined;
}) {
  const destinations = useDestinations();
  const known = destinations.data ?? [];
  // A destination deleted since keeps its id in the monitor: shown, so it can be taken off.
  const missing = chosen.filter((id) => !known.some((destination) => destination.id === id));
  const toggle = (id: string, on: boolean) => onChange(on ? [...chosen, id] : chosen.filter((other) => other !== id));
  return (
    <fieldset className="field" aria-invalid={error === undefined ? undefined : true}>
      <legend>Destinations</legend>
      {destinations.isPending ? <p className="muted">Loading destinations…</p> : null}
      {destinations.data?.length === 0 ? (
        <p className="muted">No destinations yet: add one on the Alerts page. The monitor's history is kept anyway.</p>
      ) : null}
      {known.map((destination) => (
        <label key={destination.id} className="choice">
          <input
            type="checkbox"
            checked={chosen.includes(destination.id)}
            onChange={(event) => toggle(destination.id, event.target.checked)}
          />
          {destination.name} <span className="muted">({destination.kind})</span>
        </label>
      ))}
      {missing.map((id) => (
        <label key={id} className="choice">
          <input type="checkbox" checked onChange={() => toggle(id, false)} />
          <code>{id}</code> <span className="muted">(deleted)</span>
        </label>
      ))}
      {error === undefined ? null : <p className="field__error">{error}</p>}
    </fieldset>
  );
}

export function MonitorForm({
  editing,
  onSaved,
  onCancel,
}: {
  editing?: Monitor | undefined;
  onSaved: (monitor: Monitor) => void;
  onCancel: () => void;
}) {
  const [environment] = useEnvironment();
  const save = useSaveMonitor(environment);
  const [fields, setFields] = useState<MonitorFields>(() => fieldsOf(editing));
  const [submitted, setSubmitted] = useState(false);
  const [apiErrors, setApiErrors] = useState<FieldErrors>({});
  const checked = monitorDefinition(fields);
  const errors: FieldErrors = { ...(submitted && "errors" in checked ? checked.errors : {}), ...apiErrors };

  function change<K extends keyof MonitorFields>(
    field: K,
    value: MonitorFields[K],
    path: FieldPath = field as FieldPath,
  ) {
    setFields((current) => ({ ...current, [field]: value }));
    if (apiErrors[path] !== undefined) setApiErrors(({ [path]: _gone, ...rest }) => rest);
  }
  const changeFilter = (name: FilterName, value: string) =>
    change("filters", { ...fields.filters, [name]: value }, `filters.${name}`);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    setApiErrors({});
    if (!("definition" in checked)) return;
    save.mutate(
      { id: editing?.id, definition: checked.definition },
      {
        onSuccess: onSaved,
        onError: (error) => {
          if (isApiError(error, 400)) setApiErrors(issuesByField(error.issues).fields);
        },
      },
    );
  }

  const unit = unitSuffix(fields.metric);
  const thresholdLabel = (name: string) => (unit === null ? name : `${name} (${unit})`);
  const otherIssues = isApiError(save.error, 400) ? issuesByField(save.error.issues).other : [];
  const windowMinutes = Number(fields.windowMinutes);
  const filterNames = METRIC_FILTERS[fields.metric];
  const hasClientErrors = submitted && "errors" in checked;

  return (
    <div className="monitor-form">
      <form onSubmit={submit} noValidate className="monitor-form__fields" aria-label="Monitor">
        <FormField label="Name" error={errors.name}>
          {(control) => (
            <input
              {...control}
              value={fields.name}
              onChange={(event) => change("name", event.target.value)}
              maxLength={100}
              autoComplete="off"
            />
          )}
        </FormField>
        <FormField label="Description (optional)" error={errors.description}>
          {(control) => (
            <textarea
              {...control}
              rows={2}
              value={fields.description}
              onChange={(event) => change("description", event.target.value)}
            />
          )}
        </FormField>
        <label className="choice">
          <input
            type="checkbox"
            checked={fields.enabled}
            onChange={(event) => change("enabled", event.target.checked)}
          />
          Enabled (evaluated every minute)
        </label>

        <fieldset className="form-group">
          <legend>What it measures</legend>
          <FormField label="Metric" error={errors.metric}>
            {(control) => (
              <select
                {...control}
                value={fields.metric}
                onChange={(event) => change("metric", event.target.value as MonitorMetric)}
              >
                {MONITOR_METRICS.map((metric) => (
                  <option key={metric} value={metric}>
                    {METRICS[metric].label}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField label="Agent" error={errors["filters.agent"]}>
            {(control) => (
              <AgentSelect
                {...control}
                value={fields.filters.agent}
                onChange={(value) => changeFilter("agent", value)}
              />
            )}
          </FormField>
          {filterNames
            .filter((name): name is Exclude<FilterName, "agent"> => name !== "agent")
            .map((name) => (
              <FormField
                key={name}
                label={FILTER_LABELS[name].label}
                hint={FILTER_LABELS[name].hint}
                error={errors[`filters.${name}`]}
              >
                {(control) => (
                  <input
                    {...control}
                    value={fields.filters[name]}
                    onChange={(event) => changeFilter(name, event.target.value)}
                    spellCheck={false}
                    autoComplete="off"
                  />
                )}
              </FormField>
            ))}
        </fieldset>

        <fieldset className="form-group">
          <legend>When it fires</legend>
          <FormField
            label="Window (minutes)"
            hint={
              Number.isFinite(windowMinutes) && windowMinutes > 0
                ? `A sliding window of ${formatWindow(windowMinutes)}.`
                : undefined
            }
            error={errors.windowMinutes}
          >
            {(control) => (
              <input
                {...control}
                inputMode="numeric"
                value={fields.windowMinutes}
                onChange={(event) => change("windowMinutes", event.target.value)}
              />
            )}
          </FormField>
          <FormField label="Alert when the figure is" error={errors.comparison}>
            {(control) => (
              <select
                {...control}
                value={fields.comparison}
                onChange={(event) => change("comparison", event.target.value as Comparison)}
              >
                <option value="above">Above the threshold</option>
                <option value="below">Below the threshold</option>
              </select>
            )}
          </FormField>
          <div className="field-row">
            <FormField label={thresholdLabel("Alert threshold")} error={errors.alertThreshold}>
              {(control) => (
                <input
                  {...control}
                  inputMode="decimal"
                  value={fields.alertThreshold}
                  onChange={(event) => change("alertThreshold", event.target.value)}
                />
              )}
            </FormField>
            <FormField
              label={thresholdLabel("Warning threshold")}
              hint="Optional, on the near side of the alert."
              error={errors.warningThreshold}
            >
              {(control) => (
                <input
                  {...control}
                  inputMode="decimal"
                  value={fields.warningThreshold}
                  onChange={(event) => change("warningThreshold", event.target.value)}
                />
              )}
            </FormField>
          </div>
          <FormField
            label="Minimum samples"
            hint={`Fewer ${METRICS[fields.metric].samples} than this in the window is no data (no alert on 1 of 1).`}
            error={errors.minSessions}
          >
            {(control) => (
              <input
                {...control}
                inputMode="numeric"
                value={fields.minSessions}
                onChange={(event) => change("minSessions", event.target.value)}
              />
            )}
          </FormField>
          <FormField label="No data means" error={errors.noData}>
            {(control) => (
              <select
                {...control}
                value={fields.noData}
                onChange={(event) => change("noData", event.target.value as NoDataRule)}
              >
                {(["keep", "ok", "alert"] as const).map((rule) => (
                  <option key={rule} value={rule}>
                    {NO_DATA_WORDS[rule]}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        </fieldset>

        <fieldset className="form-group">
          <legend>Whom it notifies</legend>
          <DestinationChoices
            chosen={fields.destinationIds}
            onChange={(ids) => change("destinationIds", ids)}
            error={errors.destinationIds}
          />
          <FormField
            label="Notify again every (minutes)"
            hint="While it stays in alert; 0 for never, else 5 to 1440."
            error={errors.renotifyMinutes}
          >
            {(control) => (
              <input
                {...control}
                inputMode="numeric"
                value={fields.renotifyMinutes}
                onChange={(event) => change("renotifyMinutes", event.target.value)}
              />
            )}
          </FormField>
          <label className="choice">
            <input
              type="checkbox"
              checked={fields.notifyOnRecovery}
              onChange={(event) => change("notifyOnRecovery", event.target.checked)}
            />
            Notify when it recovers
          </label>
        </fieldset>

        {hasClientErrors ? (
          <p className="inline-error" role="alert">
            Some fields need a change: see the messages under them.
          </p>
        ) : null}
        {isApiError(save.error, 400) ? (
          <div className="inline-error" role="alert">
            <strong>The service refused the monitor.</strong> {save.error.message}
            {otherIssues.length === 0 ? null : (
              <ul>
                {otherIssues.map((issue) => (
                  <li key={`${issue.path}:${issue.message}`}>
                    {issue.path}: {issue.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ) : (
          <InlineError error={save.error} />
        )}
        <div className="dialog__actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : editing === undefined ? "Create monitor" : "Save monitor"}
          </button>
        </div>
      </form>
      <MonitorPreviewPanel definition={previewDefinition(fields)} />
    </div>
  );
}
