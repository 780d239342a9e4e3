/**
 * Finding the price in force for a model name on a day: the names from model-name.ts tried in order against an
 * index of rows (the table's, or an organisation's), the newest row whose `effectiveFrom` is not after the day.
 */
import { canonicalModelName, modelNameCandidates, type NameCandidate, withoutRegion } from "./model-name.js";
import type { PriceTier, Rates } from "./price-table.js";

/** What the lookup needs of a row: a name, a date and the rates (table rows and organisation prices alike). */
export interface DatedPrice extends Rates {
  readonly model: string;
  readonly effectiveFrom: string;
  readonly tiers?: readonly PriceTier[] | undefined;
}

export interface PriceIndex<Row extends DatedPrice> {
  /** Exact (lower-case) and canonical names → rows, newest `effectiveFrom` first. */
  readonly byName: ReadonlyMap<string, readonly Row[]>;
  /** Bedrock ids (without geography) of which some geography has a row of its own. */
  readonly regionPriced: ReadonlySet<string>;
}

export function buildPriceIndex<Row extends DatedPrice>(rows: readonly Row[]): PriceIndex<Row> {
  const byName = new Map<string, Row[]>();
  const regionPriced = new Set<string>();
  const add = (name: string, row: Row) => {
    const list = byName.get(name) ?? [];
    if (!list.includes(row)) list.push(row);
    byName.set(name, list);
  };
  for (const row of rows) {
    const canonical = canonicalModelName(row.model);
    add(row.model.trim().toLowerCase(), row);
    add(canonical, row);
    const base = withoutRegion(canonical);
    if (base !== undefined) regionPriced.add(base);
  }
  // Plain string order (ISO days sort as text): localeCompare would load ICU's collator on a cold start (~30 ms).
  for (const list of byName.values())
    list.sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? 1 : a.effectiveFrom > b.effectiveFrom ? -1 : 0));
  return { byName, regionPriced };
}

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export function utcDay(at: Date | string): string {
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) throw new RangeError(`Not a date: ${String(at)}`);
  return date.toISOString().slice(0, 10);
}

export type PriceMatch<Row extends DatedPrice> =
  | { readonly found: "price"; readonly row: Row; readonly candidate: NameCandidate }
  /** A name matched, but its rows all start after the day: the model was not priced yet (never an older guess). */
  | { readonly found: "not-in-effect"; readonly candidate: NameCandidate }
  | { readonly found: "none" };

/**
 * The first candidate name that has rows decides: its newest row in force on `day`, else "not in effect" — never a
 * less specific name's price instead (a snapshot first priced apart from 2026-12-01 is unpriced before that day,
 * not priced like its undated name: nothing says they cost the same then).
 */
export function findPrice<Row extends DatedPrice>(index: PriceIndex<Row>, model: string, day: string): PriceMatch<Row> {
  for (const candidate of modelNameCandidates(model, (base) => index.regionPriced.has(base))) {
    const rows = index.byName.get(candidate.name);
    if (rows === undefined) continue;
    const row = rows.find((each) => each.effectiveFrom <= day);
    return row === undefined ? { found: "not-in-effect", candidate } : { found: "price", row, candidate };
  }
  return { found: "none" };
}
