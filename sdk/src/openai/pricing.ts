/** Prices and costs of LLM calls: pure functions. */
import type { LlmUsage, ModelPrice, PriceTable, WrapOpenAIOptions } from "./options.js";

function isPrice(value: unknown): value is ModelPrice {
  if (typeof value !== "object" || value === null) return false;
  const price = value as Record<string, unknown>;
  return isCost(price.inputPerMillion) && isCost(price.outputPerMillion);
}

function isCost(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/** The price of `model`: the entry of that exact name, else the one of the longest key that is a prefix of it. */
export function findPrice(prices: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(prices, model)) {
    const exact = prices[model];
    return isPrice(exact) ? exact : undefined;
  }
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (key !== "" && model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  const price = best === undefined ? undefined : prices[best];
  return isPrice(price) ? price : undefined;
}

/** `usage` at `price`; cached prompt tokens at `cachedInputPerMillion` when both are known. */
export function costAt(price: ModelPrice, usage: LlmUsage): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const cachedRate = isCost(price.cachedInputPerMillion) ? price.cachedInputPerMillion : price.inputPerMillion;
  return (
    ((usage.promptTokens - cached) * price.inputPerMillion +
      cached * cachedRate +
      usage.completionTokens * price.outputPerMillion) /
    1_000_000
  );
}

/**
 * The cost of a call: `options.cost` when it gives a usable number, else the
 * price table; `undefined` without usage or price. Never throws.
 */
export function estimateCost(
  options: Pick<WrapOpenAIOptions, "cost" | "prices">,
  models: readonly (string | undefined)[],
  usage: LlmUsage | undefined,
): number | undefined {
  if (usage === undefined) return undefined;
  const named = models.filter((model): model is string => typeof model === "string" && model !== "");
  const [model] = named;
  if (options.cost !== undefined && model !== undefined) {
    try {
      const cost = options.cost(model, usage);
      if (isCost(cost)) return cost;
    } catch {
      // The agent's cost function failing must not fail its LLM call: fall back to the table.
    }
  }
  if (options.prices === undefined) return undefined;
  for (const name of named) {
    const price = findPrice(options.prices, name);
    if (price !== undefined) return costAt(price, usage);
  }
  return undefined;
}
