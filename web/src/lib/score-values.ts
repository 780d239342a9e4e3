/**
 * Scores in the console: how a value reads, who gave it, and what a person typed made into a value, checked
 * against the name's configuration before anything is sent (the API checks the same: functions/domain/score-config.ts).
 */
import type { Score, ScoreConfig, ScoreValue, ScoreValueKind } from "../api/types";
import { formatNumber } from "./format";

/** The API's bounds (functions/domain/limits.ts): a name or label, a comment, a number's magnitude. */
export const SCORE_NAME_LENGTH = 200;
export const SCORE_LABEL_LENGTH = 200;
export const SCORE_COMMENT_LENGTH = 4000;
const MAX_MAGNITUDE = 1e15;

/** The quick verdict's name: a thumbs up is `true`, a thumbs down `false`. */
export const THUMBS = "thumbs";

export const KIND_NAMES: Record<ScoreValueKind, string> = {
  categorical: "Label",
  numeric: "Number",
  boolean: "Yes / no",
};

/** A value as text: a number as written, ✓/✗ for yes/no (with the words for a screen reader), a label as is. */
export function scoreValueText(value: ScoreValue): string {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return formatNumber(value);
  return value;
}

/** Who gave a score, as a person reads it: "you", or the user or API key by id. */
export function scoreAuthorText(score: Pick<Score, "author">, myUserId: string): string {
  if (score.author.kind === "user") return score.author.id === myUserId ? "you" : `user ${score.author.id}`;
  return `key ${score.author.id}`;
}

export const SOURCE_NAMES: Record<Score["source"], string> = {
  api: "API",
  sdk: "SDK",
  console: "console",
  end_user: "end user",
  evaluator: "evaluator",
};

/** Whether the signed-in user gave this score (only those are theirs to change). */
export function isMine(score: Pick<Score, "author">, myUserId: string): boolean {
  return score.author.kind === "user" && score.author.id === myUserId;
}

/** The kind a name's values must have: its configuration's, else the one chosen. */
export function kindFor(config: ScoreConfig | undefined, chosen: ScoreValueKind): ScoreValueKind {
  return config?.dataType ?? chosen;
}

/** A configuration's rule in words: "a number from 0 to 1", "one of: good, bad", "yes or no". */
export function configRuleText(config: Pick<ScoreConfig, "dataType" | "min" | "max" | "labels">): string {
  if (config.dataType === "boolean") return "yes or no";
  if (config.dataType === "categorical") {
    return config.labels === undefined ? "any label" : `one of: ${config.labels.join(", ")}`;
  }
  const { min, max } = config;
  if (min !== undefined && max !== undefined) return `a number from ${min} to ${max}`;
  if (min !== undefined) return `a number, at least ${min}`;
  if (max !== undefined) return `a number, at most ${max}`;
  return "any number";
}

export type Parsed = { value: ScoreValue } | { error: string };

/**
 * What was typed (`text`: a number, "true"/"false", a label) as a value of `kind`, or why it cannot be one: the
 * API's own bounds, then the name's configuration.
 */
export function parseScoreValue(kind: ScoreValueKind, text: string, config: ScoreConfig | undefined): Parsed {
  const trimmed = text.trim();
  if (trimmed === "") return { error: kind === "categorical" ? "Choose or type a label." : "Give a value." };
  let value: ScoreValue;
  if (kind === "boolean") {
    if (trimmed !== "true" && trimmed !== "false") return { error: "Choose yes or no." };
    value = trimmed === "true";
  } else if (kind === "numeric") {
    const number = Number(trimmed);
    if (!Number.isFinite(number) || Math.abs(number) > MAX_MAGNITUDE) {
      return { error: `The value must be a number of at most ${MAX_MAGNITUDE.toExponential()} in size.` };
    }
    value = number;
  } else {
    if ([...trimmed].length > SCORE_LABEL_LENGTH) {
      return { error: `A label has at most ${SCORE_LABEL_LENGTH} characters.` };
    }
    value = trimmed;
  }
  const problem = configProblem(config, value);
  return problem === undefined ? { value } : { error: problem };
}

/** Why `value` breaks the name's configuration (the API's wording), or undefined. */
export function configProblem(config: ScoreConfig | undefined, value: ScoreValue): string | undefined {
  if (config === undefined) return undefined;
  const rule = configRuleText(config);
  const kind: ScoreValueKind =
    typeof value === "number" ? "numeric" : typeof value === "boolean" ? "boolean" : "categorical";
  if (kind !== config.dataType) return `${config.name} takes ${rule}.`;
  if (typeof value === "number") {
    if ((config.min !== undefined && value < config.min) || (config.max !== undefined && value > config.max)) {
      return `${config.name} takes ${rule}.`;
    }
  }
  if (typeof value === "string" && config.labels !== undefined && !config.labels.includes(value)) {
    return `${config.name} takes ${rule}.`;
  }
  return undefined;
}

/** The text a value is edited as (the inverse of parseScoreValue). */
export function scoreValueInput(value: ScoreValue): string {
  return String(value);
}
