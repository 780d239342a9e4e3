/**
 * Cost by model, as the overview and agent pages show it: the costliest models by name, the rest summed on one line,
 * and the calls no price covered counted on a line of their own (their cost is unknown, so it is not in any sum).
 */
import type { ModelsReport, ModelUsage } from "../api/types";

/** Models shown by name before the rest are summed. */
export const MODELS_SHOWN = 8;

/** Where the server counts a session's calls of models past its first four (functions/domain/rollup.ts). */
export const OTHER_MODELS = "(other)";

export type ModelTally = Omit<ModelUsage, "model">;

export interface CostByModelLine extends ModelTally {
  /** What the line is called for people. */
  label: string;
  /** Why the line has no model name of its own, when it has none. */
  explanation?: string;
}

export interface CostByModel {
  lines: CostByModelLine[];
  totals: ModelTally;
  /** Calls whose cost is unknown: counted here, never in a cost. */
  unpricedCalls: number;
}

const TALLY_FIELDS = [
  "calls",
  "estimatedCost",
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
  "unpricedCalls",
] as const satisfies readonly (keyof ModelTally)[];

function sum(lines: readonly ModelTally[]): ModelTally {
  const total = Object.fromEntries(TALLY_FIELDS.map((field) => [field, 0])) as Record<keyof ModelTally, number>;
  for (const line of lines) for (const field of TALLY_FIELDS) total[field] += line[field];
  return total;
}

function lineOf(usage: ModelUsage): CostByModelLine {
  const { model, ...tally } = usage;
  if (model === null) {
    return { ...tally, label: "No model named", explanation: "calls that reported usage but no model name" };
  }
  if (model === OTHER_MODELS) {
    return { ...tally, label: "Other models", explanation: "a session's calls of models past its first four" };
  }
  return { ...tally, label: model };
}

/** The lines to show for a period's report (the server lists the costliest first; unnamed calls last). */
export function costByModel(report: Pick<ModelsReport, "models" | "totals">, shown = MODELS_SHOWN): CostByModel {
  const named = report.models.filter((usage) => usage.model !== null && usage.model !== OTHER_MODELS);
  const grouped = report.models.filter((usage) => usage.model === null || usage.model === OTHER_MODELS);
  const lines = named.slice(0, shown).map(lineOf);
  const rest = named.slice(shown);
  if (rest.length > 0) {
    lines.push({
      ...sum(rest),
      label: `${rest.length} more ${rest.length === 1 ? "model" : "models"}`,
      explanation: "the cheapest models of the period, summed",
    });
  }
  lines.push(...grouped.map(lineOf));
  return { lines, totals: report.totals, unpricedCalls: report.totals.unpricedCalls };
}
