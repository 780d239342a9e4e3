/**
 * Pricing one model call: an organisation's own prices first, then the table shipped in the bundle; a model that
 * matches neither stays unpriced and says why. Pure: no I/O, the table is part of the bundle.
 */
import { costOf, hasBillableTokens } from "./cost.js";
import { buildPriceIndex, type DatedPrice, findPrice, type PriceIndex, utcDay } from "./price-lookup.js";
import { modelPriceFile, type PriceRow, priceRows } from "./price-table.js";
import type { TokenUsage } from "./usage.js";

/** An organisation's price for a model, from a day on (stored per organisation; matched like the table's rows). */
export type OrganisationPrice = DatedPrice;

export type CostSource = "table" | "organisation" | "unpriced";

export type UnpricedReason =
  /** No model name came with the usage. */
  | "no-model"
  /** No token count that can be priced (none at all, or only `totalTokens`). */
  | "no-usage"
  /** The name matches no organisation price and no table row. */
  | "unknown-model"
  /** The name matches, but its first price starts after the call. */
  | "no-price-in-effect";

export type PricedUsage =
  | {
      readonly cost: number;
      readonly costSource: "table" | "organisation";
      /** The `effectiveFrom` of the price used. */
      readonly priceEffectiveFrom: string;
      /** The name of the row or organisation price used (as written there). */
      readonly matchedModel: string;
    }
  | { readonly cost: null; readonly costSource: "unpriced"; readonly unpricedReason: UnpricedReason };

export interface PriceUsageInput {
  readonly model: string | undefined;
  readonly usage: TokenUsage;
  /** When the call was made: the price in force that UTC day applies. */
  readonly at: Date | string;
  /** The organisation's own prices, checked before the table. */
  readonly organisationPrices?: readonly OrganisationPrice[] | PriceIndex<OrganisationPrice> | undefined;
}

let tableIndex: PriceIndex<PriceRow> | undefined;

/** The shipped table's index, built on first use (not at module load, so a cold start that prices nothing pays nothing). */
export function modelPriceIndex(): PriceIndex<PriceRow> {
  tableIndex ??= buildPriceIndex(priceRows(modelPriceFile()));
  return tableIndex;
}

const unpriced = (unpricedReason: UnpricedReason): PricedUsage => ({
  cost: null,
  costSource: "unpriced",
  unpricedReason,
});

/** Prices `usage` of `model` at `at`: organisation prices, then `table` (the shipped one unless given). */
export function priceUsage(input: PriceUsageInput, table: PriceIndex<DatedPrice> = modelPriceIndex()): PricedUsage {
  const model = input.model?.trim();
  if (model === undefined || model === "") return unpriced("no-model");
  if (!hasBillableTokens(input.usage) && !hasExplicitZero(input.usage)) return unpriced("no-usage");
  const day = utcDay(input.at);
  let notInEffect = false;
  const sources = [
    ["organisation", organisationIndex(input.organisationPrices)],
    ["table", table],
  ] as const;
  for (const [costSource, index] of sources) {
    if (index === undefined) continue;
    const match = findPrice(index, model, day);
    if (match.found === "price") {
      return {
        cost: costOf(input.usage, match.row),
        costSource,
        priceEffectiveFrom: match.row.effectiveFrom,
        matchedModel: match.row.model,
      };
    }
    if (match.found === "not-in-effect") notInEffect = true;
  }
  return unpriced(notInEffect ? "no-price-in-effect" : "unknown-model");
}

function organisationIndex(prices: PriceUsageInput["organisationPrices"]): PriceIndex<OrganisationPrice> | undefined {
  if (prices === undefined) return undefined;
  return "byName" in prices ? prices : buildPriceIndex(prices);
}

/** A usage that says "zero tokens" (rather than nothing) is priced, at 0. */
function hasExplicitZero(usage: TokenUsage): boolean {
  return usage.promptTokens === 0 || usage.completionTokens === 0;
}
