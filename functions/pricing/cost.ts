/** The cost of one model call from its usage and a price: pure arithmetic, rates in USD per million tokens. */
import type { PriceTier, Rates } from "./price-table.js";
import type { TokenUsage } from "./usage.js";

const PER_MILLION = 1_000_000;

/** The tokens a price is applied to, split by token type (each part counted once). */
export interface BilledTokens {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  readonly reasoning: number;
}

const count = (value: number | undefined): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * Splits a usage by the ats convention (usage.ts): cache reads and writes are parts of `promptTokens`, reasoning
 * tokens part of `completionTokens`. A part larger than its whole (inconsistent counts) is billed as reported and
 * the whole's remainder is 0. Without `promptTokens`, `totalTokens - completionTokens` stands for it.
 */
export function billedTokens(usage: TokenUsage): BilledTokens {
  const cacheRead = count(usage.cacheReadTokens);
  const cacheWrite = count(usage.cacheWriteTokens);
  const reasoning = count(usage.reasoningTokens);
  const completion = count(usage.completionTokens);
  const prompt =
    usage.promptTokens !== undefined
      ? count(usage.promptTokens)
      : usage.totalTokens !== undefined && usage.completionTokens !== undefined
        ? Math.max(0, count(usage.totalTokens) - completion)
        : 0;
  return {
    input: Math.max(0, prompt - cacheRead - cacheWrite),
    cacheRead,
    cacheWrite,
    output: Math.max(0, completion - reasoning),
    reasoning,
  };
}

/** Whether the usage holds any token to bill (a count of 0 everywhere, or only `totalTokens`, holds none). */
export function hasBillableTokens(usage: TokenUsage): boolean {
  const tokens = billedTokens(usage);
  return tokens.input + tokens.cacheRead + tokens.cacheWrite + tokens.output + tokens.reasoning > 0;
}

/** The prompt size that picks a tier: every input token, cached ones included. */
export function promptSize(tokens: BilledTokens): number {
  return tokens.input + tokens.cacheRead + tokens.cacheWrite;
}

/** The rates in force for a prompt of `size` tokens: the highest tier it is above, over the base rates. */
export function ratesFor(price: Rates & { readonly tiers?: readonly PriceTier[] | undefined }, size: number): Rates {
  let chosen: PriceTier | undefined;
  for (const tier of price.tiers ?? []) {
    if (size > tier.above && (chosen === undefined || tier.above > chosen.above)) chosen = tier;
  }
  const base: Rates = {
    input: price.input,
    output: price.output,
    ...(price.cacheRead !== undefined && { cacheRead: price.cacheRead }),
    ...(price.cacheWrite !== undefined && { cacheWrite: price.cacheWrite }),
    ...(price.reasoning !== undefined && { reasoning: price.reasoning }),
  };
  if (chosen === undefined) return base;
  const { above: _above, ...tierRates } = chosen;
  return { ...base, ...tierRates };
}

/**
 * USD for one call: uncached input at `input`, cache reads at `cacheRead` (else `input`), cache writes at
 * `cacheWrite` (else `input`), output at `output`, reasoning at `reasoning` (else `output`); the tier picked by the
 * prompt's size applies to the whole call. Rounded to 1e-10 USD to drop floating-point noise.
 */
export function costOf(
  usage: TokenUsage,
  price: Rates & { readonly tiers?: readonly PriceTier[] | undefined },
): number {
  const tokens = billedTokens(usage);
  const rates = ratesFor(price, promptSize(tokens));
  const micro =
    tokens.input * rates.input +
    tokens.cacheRead * (rates.cacheRead ?? rates.input) +
    tokens.cacheWrite * (rates.cacheWrite ?? rates.input) +
    tokens.output * rates.output +
    tokens.reasoning * (rates.reasoning ?? rates.output);
  return Math.round((micro / PER_MILLION) * 1e10) / 1e10;
}
