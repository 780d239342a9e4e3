/**
 * Score configurations (issue 33): what an organisation says a score name means — its kind, and for a number its
 * range, for a label the labels allowed. A score whose name has a configuration must keep to it (a field-level 400
 * on `value`); names without one take any value. Pure: no I/O, no HTTP.
 */
import type { ScoreValue, ScoreValueKind } from "./score.js";

export const SCORE_CONFIG_LIMITS = {
  /** Configurations one organisation may hold (409 past it). */
  configsPerOrganisation: 100,
  /** Labels one categorical configuration may allow. */
  labels: 100,
  /** A configuration's description, in characters. */
  descriptionLength: 1000,
} as const;

/** What an organisation says of one score name. */
export interface ScoreConfigSetting {
  readonly dataType: ScoreValueKind;
  /** Numeric only: the lowest and highest value allowed (either may be left open). */
  readonly min?: number | undefined;
  readonly max?: number | undefined;
  /** Categorical only: the labels allowed (any label when absent). */
  readonly labels?: readonly string[] | undefined;
  readonly description?: string | undefined;
}

/** A stored configuration: the score name it governs, the setting, who set it and when. */
export interface ScoreConfig extends ScoreConfigSetting {
  readonly name: string;
  readonly updatedAt: string;
  readonly updatedBy: string;
}

const KIND_WORDS: Record<ScoreValueKind, string> = {
  numeric: "a number",
  boolean: "true or false",
  categorical: "a label",
};

/** Why `value` breaks the configuration of its score name, or undefined when it keeps to it (or there is none). */
export function scoreConfigProblem(config: ScoreConfig | undefined, value: ScoreValue): string | undefined {
  if (config === undefined) return undefined;
  const what = `the configuration of score ${config.name}`;
  const kind = typeof value === "number" ? "numeric" : typeof value === "boolean" ? "boolean" : "categorical";
  if (kind !== config.dataType) return `Must be ${KIND_WORDS[config.dataType]} (${what})`;
  if (typeof value === "number") {
    const { min, max } = config;
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      const range =
        min !== undefined && max !== undefined
          ? `from ${min} to ${max}`
          : min !== undefined
            ? `at least ${min}`
            : `at most ${max}`;
      return `Must be ${range} (${what})`;
    }
  }
  if (typeof value === "string" && config.labels !== undefined && !config.labels.includes(value)) {
    const shown = config.labels.slice(0, 10).join(", ");
    const more = config.labels.length > 10 ? `, … (${config.labels.length} in all)` : "";
    return `Must be one of the labels of ${what}: ${shown}${more}`;
  }
  return undefined;
}
