/**
 * What is wrong with a price file, in words (empty when nothing is): every block cites a known source with an https
 * URL and a date, every price has a valid day and non-negative rates, and no two rows answer to the same name on the
 * same day. The unit tests run it on the shipped table (a row without a source fails the build), and the update
 * script refuses to write a table it finds fault with.
 */
import { canonicalModelName } from "../../functions/pricing/model-name.js";
import { PROVIDERS } from "../../functions/pricing/price-table.js";

const RATE_NAMES = new Set(["input", "output", "cacheRead", "cacheWrite", "reasoning"]);

/** A real calendar day written `YYYY-MM-DD`. */
export function isDay(value: unknown): value is string {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

const isRate = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function priceFileProblems(file: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(file) || !isObject(file.sources) || !Array.isArray(file.prices)) {
    return ["a price file is { sources: { id: source }, prices: [block] }"];
  }
  for (const [id, source] of Object.entries(file.sources)) {
    if (!isObject(source)) {
      problems.push(`source ${id}: not an object`);
      continue;
    }
    if (typeof source.title !== "string" || source.title === "") problems.push(`source ${id}: no title`);
    if (typeof source.url !== "string" || !/^https:\/\/\S+$/.test(source.url))
      problems.push(`source ${id}: no https url`);
    if (!isDay(source.asOf)) problems.push(`source ${id}: asOf is not a YYYY-MM-DD day`);
    if (source.commit !== undefined && (typeof source.commit !== "string" || !/^[0-9a-f]{7,40}$/.test(source.commit))) {
      problems.push(`source ${id}: commit is not a commit hash`);
    }
  }
  const seen = new Map<string, string>();
  file.prices.forEach((block: unknown, index) => {
    const where = `block ${index + 1}`;
    if (!isObject(block) || !isObject(block.models)) {
      problems.push(`${where}: not { source, effectiveFrom, models }`);
      return;
    }
    if (typeof block.source !== "string" || block.source === "") {
      problems.push(`${where}: no source`);
    } else if (!Object.hasOwn(file.sources as object, block.source)) {
      problems.push(`${where}: source ${block.source} is not in sources`);
    }
    if (!isDay(block.effectiveFrom)) problems.push(`${where}: effectiveFrom is not a YYYY-MM-DD day`);
    for (const [provider, models] of Object.entries(block.models)) {
      if (!(PROVIDERS as readonly string[]).includes(provider)) problems.push(`${where}: unknown provider ${provider}`);
      if (!isObject(models)) continue;
      for (const [model, price] of Object.entries(models)) {
        problems.push(...priceProblems(`${where} ${provider}/${model}`, price));
        if (model !== model.trim().toLowerCase()) problems.push(`${where} ${model}: names are lower-case`);
        const key = `${canonicalModelName(model)} ${String(block.effectiveFrom)}`;
        const other = seen.get(key);
        if (other !== undefined) problems.push(`${where} ${model}: same name and day as ${other}`);
        seen.set(key, model);
      }
    }
  });
  return problems;
}

function priceProblems(where: string, price: unknown): string[] {
  if (!isObject(price)) return [`${where}: not an object of rates`];
  const problems: string[] = [];
  if (!isRate(price.input) || !isRate(price.output)) problems.push(`${where}: input and output must be rates ≥ 0`);
  for (const [name, value] of Object.entries(price)) {
    if (name === "tiers") continue;
    if (!RATE_NAMES.has(name)) problems.push(`${where}: unknown field ${name}`);
    else if (!isRate(value)) problems.push(`${where}: ${name} must be a rate ≥ 0`);
  }
  if (price.tiers !== undefined) {
    if (!Array.isArray(price.tiers) || price.tiers.length === 0)
      problems.push(`${where}: tiers must be a non-empty list`);
    else {
      for (const tier of price.tiers) {
        if (!isObject(tier) || !Number.isInteger(tier.above) || (tier.above as number) <= 0) {
          problems.push(`${where}: a tier needs "above", a positive whole number of tokens`);
          continue;
        }
        for (const [name, value] of Object.entries(tier)) {
          if (name !== "above" && (!RATE_NAMES.has(name) || !isRate(value)))
            problems.push(`${where}: tier field ${name}`);
        }
      }
    }
  }
  return problems;
}
