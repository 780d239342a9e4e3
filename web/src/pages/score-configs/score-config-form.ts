/** The configuration form's fields made into the body of PUT /api/sdk/score-configs/{name}, or why they cannot be. */
import type { ScoreConfigInput } from "../../api/scores";
import type { ScoreConfig, ScoreValueKind } from "../../api/types";
import { SCORE_LABEL_LENGTH, SCORE_NAME_LENGTH } from "../../lib/score-values";

/** The API's bounds (functions/domain/score-config.ts SCORE_CONFIG_LIMITS). */
export const CONFIG_LABELS = 100;
export const CONFIG_DESCRIPTION_LENGTH = 1000;

export interface ScoreConfigFields {
  name: string;
  dataType: ScoreValueKind;
  min: string;
  max: string;
  /** One label a line; empty: any label. */
  labels: string;
  description: string;
}

export function fieldsOf(config: ScoreConfig | undefined): ScoreConfigFields {
  return {
    name: config?.name ?? "",
    dataType: config?.dataType ?? "categorical",
    min: config?.min === undefined ? "" : String(config.min),
    max: config?.max === undefined ? "" : String(config.max),
    labels: (config?.labels ?? []).join("\n"),
    description: config?.description ?? "",
  };
}

function bound(text: string, label: string): number | undefined | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : { error: `${label} must be a number, or empty for no bound.` };
}

export function configBody(fields: ScoreConfigFields): { body: ScoreConfigInput } | { error: string } {
  const name = fields.name.trim();
  if (name === "" || [...name].length > SCORE_NAME_LENGTH) {
    return { error: `Name the score (1 to ${SCORE_NAME_LENGTH} characters), exactly as scores carry it.` };
  }
  const body: ScoreConfigInput = { name, dataType: fields.dataType };
  const description = fields.description.trim();
  if ([...description].length > CONFIG_DESCRIPTION_LENGTH) {
    return { error: `A description has at most ${CONFIG_DESCRIPTION_LENGTH} characters.` };
  }
  if (description !== "") body.description = description;
  if (fields.dataType === "numeric") {
    const min = bound(fields.min, "Lowest");
    const max = bound(fields.max, "Highest");
    if (typeof min === "object") return min;
    if (typeof max === "object") return max;
    if (min !== undefined && max !== undefined && min > max) {
      return { error: "The lowest value must not be above the highest." };
    }
    if (min !== undefined) body.min = min;
    if (max !== undefined) body.max = max;
  }
  if (fields.dataType === "categorical") {
    const labels = fields.labels
      .split("\n")
      .map((label) => label.trim())
      .filter((label) => label !== "");
    if (labels.length > CONFIG_LABELS) return { error: `At most ${CONFIG_LABELS} labels.` };
    const long = labels.find((label) => [...label].length > SCORE_LABEL_LENGTH);
    if (long !== undefined) return { error: `A label has at most ${SCORE_LABEL_LENGTH} characters.` };
    const repeated = labels.find((label, index) => labels.indexOf(label) !== index);
    if (repeated !== undefined) return { error: `The label ${repeated} is listed twice.` };
    if (labels.length > 0) body.labels = labels;
  }
  return { body };
}
