/**
 * The model price table (`model-prices.json`) and its shape. The file groups prices by where they were read: each
 * block names a source (a key of `sources`: the page or public list read, its commit and date) and the day its prices
 * take effect, then lists models per provider with their rates in USD per million tokens. Grouping keeps the bundle
 * small (the file is part of every function that prices); `priceRows()` gives the flat rows the lookup indexes.
 * Prices are data: no rate lives anywhere else.
 */
import { readFileSync } from "node:fs";

/** USD per million tokens, per token type. `input` and `output` are always given; the others only when billed apart. */
export interface Rates {
  readonly input: number;
  readonly output: number;
  /** Cached prompt tokens read back; without it they cost `input`. */
  readonly cacheRead?: number;
  /** Prompt tokens written to the cache (Anthropic's 5-minute writes); without it they cost `input`. */
  readonly cacheWrite?: number;
  /** Reasoning (thinking) tokens, only where billed apart from `output`; without it they cost `output`. */
  readonly reasoning?: number;
}

/** Long-prompt pricing: when the prompt (cached tokens included) is above `above` tokens, the whole call takes these rates. */
export interface PriceTier extends Partial<Rates> {
  readonly above: number;
}

/** One model's price in a block. */
export interface ModelRates extends Rates {
  readonly tiers?: readonly PriceTier[];
}

export const PROVIDERS = ["openai", "anthropic", "google", "mistral", "bedrock", "azure"] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface PriceSource {
  /** What was read, in words. */
  readonly title: string;
  /** The page or file read (a provider's price page, or a public list at a commit). */
  readonly url: string;
  /** The commit read (a public list), when there is one. */
  readonly commit?: string;
  /** `YYYY-MM-DD`: when the source said so. */
  readonly asOf: string;
}

/** Prices read from one source that take effect on one day. */
export interface PriceBlock {
  /** A key of the file's `sources`. */
  readonly source: string;
  /** `YYYY-MM-DD` (UTC): these prices apply from this day on, until a later row of the same model. */
  readonly effectiveFrom: string;
  /** Provider → model name (lower-case, as the provider or the source spells it) → rates. */
  readonly models: Readonly<Partial<Record<Provider, Readonly<Record<string, ModelRates>>>>>;
}

/** The file as stored. */
export interface PriceFile {
  readonly sources: Readonly<Record<string, PriceSource>>;
  readonly prices: readonly PriceBlock[];
}

/** One model's price from one day, with where it was read: a row of the table. */
export interface PriceRow extends ModelRates {
  /** The model's name as its provider (or the source) spells it, lower-case: the match key. */
  readonly model: string;
  readonly provider: Provider;
  readonly effectiveFrom: string;
  readonly source: string;
}

/** The table as rows (what the lookup and the update script work on). */
export interface PriceTable {
  readonly sources: Readonly<Record<string, PriceSource>>;
  readonly rows: readonly PriceRow[];
}

/**
 * The file's name. It ships beside the code that reads it: here in functions/pricing/, and beside `index.mjs` in a
 * Lambda bundle (lib/constructs/api-function.ts copies it there). Data, not code: a function that prices nothing
 * never parses it, and its 20 KB stay out of every bundle's JavaScript.
 */
export const MODEL_PRICE_FILE_NAME = "model-prices.json";

let loadedPriceFile: PriceFile | undefined;

/** The stored file (checked by test/unit/pricing-table.test.ts), read and parsed on first use. */
export function modelPriceFile(): PriceFile {
  loadedPriceFile ??= JSON.parse(
    readFileSync(new URL(`./${MODEL_PRICE_FILE_NAME}`, import.meta.url), "utf8"),
  ) as PriceFile;
  return loadedPriceFile;
}

/** A price file's blocks as flat rows, in file order. */
export function priceRows(priceFile: PriceFile): PriceRow[] {
  const rows: PriceRow[] = [];
  for (const block of priceFile.prices) {
    for (const provider of PROVIDERS) {
      for (const [model, rates] of Object.entries(block.models[provider] ?? {})) {
        rows.push({ model, provider, ...rates, effectiveFrom: block.effectiveFrom, source: block.source });
      }
    }
  }
  return rows;
}

/** A table's rows grouped back into blocks (by source and day, then provider), for writing the file. */
export function priceFile(table: PriceTable): PriceFile {
  const blocks = new Map<
    string,
    { source: string; effectiveFrom: string; models: Partial<Record<Provider, Record<string, ModelRates>>> }
  >();
  for (const row of table.rows) {
    const key = `${row.source} ${row.effectiveFrom}`;
    const block = blocks.get(key) ?? { source: row.source, effectiveFrom: row.effectiveFrom, models: {} };
    blocks.set(key, block);
    const { model, provider, effectiveFrom: _day, source: _source, ...rates } = row;
    const models = block.models[provider] ?? {};
    block.models[provider] = models;
    models[model] = rates;
  }
  const key = (block: { effectiveFrom: string; source: string }) => `${block.effectiveFrom} ${block.source}`;
  const ordered = [...blocks.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return { sources: table.sources, prices: ordered.map((block) => ({ ...block, models: byProvider(block.models) })) };
}

function byProvider<T>(models: Partial<Record<Provider, T>>): Partial<Record<Provider, T>> {
  const ordered: Partial<Record<Provider, T>> = {};
  for (const provider of PROVIDERS) {
    const value = models[provider];
    if (value !== undefined) ordered[provider] = value;
  }
  return ordered;
}
