/**
 * The session filter's score condition (issue 33): a score name (suggesting the organisation's configured names and
 * the console's thumbs), then what its latest score must be: any value, a range for numbers, true/false for yes/no,
 * a label. A configured name offers only its own kind's conditions (and its labels); another name offers them all.
 */
import { useId } from "react";
import { useScoreConfigs } from "../../api/scores";
import type { ScoreConfig } from "../../api/types";
import { THUMBS } from "../../lib/score-values";
import type { FilterValues, SCORE_FILTERS, ScoreCondition } from "../../lib/session-filters";

type ScoreValues = Pick<FilterValues, (typeof SCORE_FILTERS)[number]>;

const CONDITION_NAMES: Record<ScoreCondition, string> = {
  any: "Any value",
  range: "A number between",
  true: "True",
  false: "False",
  label: "The label",
};

/** The conditions a name's scores can meet: its configuration's kind's, or every one without a configuration. */
function conditionsFor(config: ScoreConfig | undefined, name: string): ScoreCondition[] {
  const kind = config?.dataType ?? (name === THUMBS ? "boolean" : undefined);
  if (kind === "numeric") return ["any", "range"];
  if (kind === "boolean") return ["any", "true", "false"];
  if (kind === "categorical") return ["any", "label"];
  return ["any", "range", "true", "false", "label"];
}

/** The score parameters for a condition: the name kept, only the chosen condition's fields carried over. */
function withCondition(values: ScoreValues, condition: ScoreCondition): ScoreValues {
  return {
    scoreName: values.scoreName,
    scoreMin: condition === "range" ? values.scoreMin : "",
    scoreMax: condition === "range" ? values.scoreMax : "",
    scoreLabel: condition === "label" ? values.scoreLabel : "",
    scoreValue: condition === "true" || condition === "false" ? condition : "",
  };
}

export function ScoreFilterFields({
  values,
  condition,
  onChange,
}: {
  values: ScoreValues;
  /** The condition chosen in the form (kept while its fields are still empty). */
  condition: ScoreCondition;
  onChange: (values: ScoreValues, condition: ScoreCondition) => void;
}) {
  const configs = useScoreConfigs();
  const namesId = useId();
  const labelsId = useId();
  const config = configs.data?.find((item) => item.name === values.scoreName);
  const offered = conditionsFor(config, values.scoreName);
  const shown = offered.includes(condition) ? condition : "any";
  const names = [...new Set([...(configs.data ?? []).map((item) => item.name), THUMBS])];
  const set = (field: keyof ScoreValues) => (event: { target: { value: string } }) =>
    onChange({ ...values, [field]: event.target.value }, shown);
  return (
    <fieldset className="filters__score">
      <legend>Score</legend>
      <label className="field">
        <span>Score name</span>
        <input
          value={values.scoreName}
          onChange={(event) => {
            const name = event.target.value;
            const next = conditionsFor(
              configs.data?.find((item) => item.name === name),
              name,
            );
            const kept = next.includes(shown) ? shown : "any";
            onChange(withCondition({ ...values, scoreName: name }, kept), kept);
          }}
          list={namesId}
          autoComplete="off"
        />
        <datalist id={namesId}>
          {names.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
      <label className="field">
        <span>Its latest score</span>
        <select
          value={shown}
          disabled={values.scoreName === ""}
          onChange={(event) => {
            const next = event.target.value as ScoreCondition;
            onChange(withCondition(values, next), next);
          }}
        >
          {offered.map((option) => (
            <option key={option} value={option}>
              {CONDITION_NAMES[option]}
            </option>
          ))}
        </select>
      </label>
      {shown === "range" ? (
        <>
          <label className="field field--narrow">
            <span>At least</span>
            <input
              type="number"
              step="any"
              inputMode="decimal"
              value={values.scoreMin}
              onChange={set("scoreMin")}
              placeholder={config?.min === undefined ? "" : String(config.min)}
            />
          </label>
          <label className="field field--narrow">
            <span>At most</span>
            <input
              type="number"
              step="any"
              inputMode="decimal"
              value={values.scoreMax}
              onChange={set("scoreMax")}
              placeholder={config?.max === undefined ? "" : String(config.max)}
            />
          </label>
        </>
      ) : null}
      {shown === "label" ? (
        <label className="field">
          <span>Label</span>
          <input value={values.scoreLabel} onChange={set("scoreLabel")} list={labelsId} autoComplete="off" />
          <datalist id={labelsId}>
            {(config?.labels ?? []).map((label) => (
              <option key={label} value={label} />
            ))}
          </datalist>
        </label>
      ) : null}
    </fieldset>
  );
}
