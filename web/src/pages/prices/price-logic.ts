/** The page's pure rules: reading rate fields, searching the shipped table, the models used without a price. */
import type { ModelUsage, PriceRates, PriceTable } from "../../api/types";

/** The API's bounds (functions/store/prices/price-limits.ts): the form checks them before sending. */
export const MAX_RATE = 10_000;
export const MAX_MODEL_LENGTH = 256;
/** Rows of the shipped table shown at once; a search narrows them. */
export const TABLE_ROWS_SHOWN = 25;

export const RATE_FIELDS = [
  ["input", "Input"],
  ["output", "Output"],
  ["cacheRead", "Cache read"],
  ["cacheWrite", "Cache write"],
  ["reasoning", "Reasoning"],
] as const satisfies readonly (readonly [keyof Omit<PriceRates, "tiers">, string])[];
export type RateField = (typeof RATE_FIELDS)[number][0];

/** A rate typed in a field: a number, `undefined` when left empty, or why it is refused. */
export function parseRate(text: string): number | undefined | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const value = Number(trimmed);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(trimmed) || !Number.isFinite(value) || value < 0 || value > MAX_RATE) {
    return { error: `a number from 0 to ${MAX_RATE}` };
  }
  return value;
}

/** A rate for people: USD per million tokens, as precise as it was set ("$0.075", "$15"). */
export function formatRate(value: number | undefined): string {
  if (value === undefined) return "—";
  return `$${value.toLocaleString("en-GB", { maximumFractionDigits: 6 })}`;
}

/** Whether `text` is a real UTC day YYYY-MM-DD of this century (the API's rule). */
export function isPriceDay(text: string): boolean {
  if (!/^20\d{2}-\d{2}-\d{2}$/.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}

type TableRow = PriceTable["items"][number];

/**
 * The shipped table's rows matching a search (every word, ignoring case, in the model or the provider), newest
 * price of a model first; at most `limit` of them, and how many matched.
 */
export function searchPriceTable(
  rows: readonly TableRow[],
  search: string,
  limit = TABLE_ROWS_SHOWN,
): { rows: TableRow[]; matched: number } {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matching = rows.filter((row) => {
    const text = `${row.model} ${row.provider}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
  matching.sort((a, b) =>
    a.model !== b.model ? (a.model < b.model ? -1 : 1) : a.effectiveFrom < b.effectiveFrom ? 1 : -1,
  );
  return { rows: matching.slice(0, limit), matched: matching.length };
}

/** The models used with calls nobody priced, most unpriced calls first. */
export function unpricedModels(usage: readonly ModelUsage[]): (ModelUsage & { model: string })[] {
  // Calls that named no model cannot be given a price: they are not listed.
  return usage
    .filter((line): line is ModelUsage & { model: string } => line.model !== null && line.unpricedCalls > 0)
    .sort((a, b) => b.unpricedCalls - a.unpricedCalls || (a.model < b.model ? -1 : 1));
}
