/**
 * A score name's figures (a conversation's totals, an agent's stats) in words: the mean of its numbers, the share of
 * its yes/no that are yes, its labels, each with its count. Pure.
 */
import type { ConversationTotals } from "../api/types";
import { formatNumber, plural } from "./format";

/** One name's figures as a conversation's totals give them. */
export type ScoreNameFigures = ConversationTotals["scores"][number];

/** A mean as read: up to three decimals ("0.833"). */
export function formatMean(value: number): string {
  return formatNumber(Math.round(value * 1000) / 1000);
}

/** A share of true (0…1) as a whole percentage: "67% true". */
export function formatTrueShare(share: number): string {
  return `${Math.round(share * 100)}% true`;
}

/**
 * Each kind the name holds, in words with its count: "mean 0.633 of 3 numbers", "67% true (2 of 3)",
 * "friendly 6, rude 1"; a name without a configuration may hold several kinds, each its own part.
 */
export function scoreFiguresParts(figures: Pick<ScoreNameFigures, "numeric" | "boolean" | "labels">): string[] {
  const parts: string[] = [];
  const { numeric, boolean, labels } = figures;
  if (numeric !== null && numeric.count > 0) {
    parts.push(
      numeric.mean === null
        ? plural(numeric.count, "number")
        : `mean ${formatMean(numeric.mean)} of ${plural(numeric.count, "number")}`,
    );
  }
  if (boolean !== null && boolean.count > 0) {
    const counts = `${formatNumber(boolean.trueCount)} of ${formatNumber(boolean.count)}`;
    parts.push(boolean.trueShare === null ? `${counts} true` : `${formatTrueShare(boolean.trueShare)} (${counts})`);
  }
  if (labels.length > 0) {
    parts.push(labels.map((label) => `${label.label} ${formatNumber(label.count)}`).join(", "));
  }
  return parts;
}
