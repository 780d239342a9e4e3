/**
 * LiteLLM's `model_prices_and_context_window.json` → the price table's rows, for the providers and models ats covers.
 * Pure: the caller reads the file. Rates become USD per million tokens; LiteLLM's `…_above_<N>k_tokens` keys become
 * tiers; priority, flex and batch rates, 1-hour cache writes, audio, image and search prices are left out.
 */
import { canonicalModelName, withoutRegion, withoutSnapshotDate } from "../../functions/pricing/model-name.js";
import type { PriceTier, Provider, Rates } from "../../functions/pricing/price-table.js";

/** A row as the source gives it, before it gets a date and a source in the table. */
export interface SourceRow extends Rates {
  readonly model: string;
  readonly provider: Provider;
  readonly tiers?: readonly PriceTier[];
}

/** OpenAI's current and previous generations (also the models an `azure/` name is matched against). */
const OPENAI_MODELS =
  /^(?:gpt-5(?:\.\d+)?(?:-(?:mini|nano|pro|chat|chat-latest|codex|codex-mini|codex-max|sol|terra|luna))?|gpt-4\.1(?:-mini|-nano)?|gpt-4o(?:-mini)?|o1(?:-pro)?|o3(?:-mini|-pro)?|o4-mini)(?:-\d{4}-\d{2}-\d{2})?$/;
/** Claude 3.5 and later (Claude 3 Opus/Sonnet/Haiku, 2, 1 and Instant are older than the previous generation). */
const ANTHROPIC_MODELS = /^claude-(?!instant|[12]|3-(?:opus|sonnet|haiku))[a-z0-9.-]+$/;
const GEMINI_MODELS =
  /^gemini\/(gemini-(?:2\.0|2\.5|3|3\.\d)-(?:pro|flash|flash-lite)(?:-preview)?(?:-(?:\d{2}-\d{4}|001))?)$/;
const MISTRAL_MODELS =
  /^mistral\/((?:mistral-(?:large|medium|small)|codestral|devstral|magistral|ministral|pixtral-large)[a-z0-9-]*)$/;
/**
 * Bedrock ids (foundation models and cross-region profiles): Claude 3.5 and later, Nova, Llama 3.1 and later, and
 * Mistral's text models from Mistral Large 2 (2407) on.
 */
const BEDROCK_MODELS =
  /^(?:(?:us|us-gov|eu|apac|jp|au|ca|global)\.)?(?:anthropic\.claude-(?!instant|v\d|mythos|3-(?:opus|sonnet|haiku))|amazon\.nova-|meta\.llama(?:3-[1-9]-|4-)|mistral\.(?!mistral-7b|mixtral|mistral-large-2402|mistral-small-2402|voxtral))[a-z0-9.:-]+$/;

const CHAT_MODES = new Set(["chat", "responses"]);

/**
 * Entries left out on review, with why: a source's own inconsistencies, so the next read does not bring them back.
 * (The model then matches through the rules like any row the table does not carry.)
 */
export const EXCLUDED_ENTRIES: Readonly<Record<string, string>> = {
  "eu.anthropic.claude-3-5-haiku-20241022-v1:0":
    "LiteLLM 2026-07-24 gives 0.25/1.25 (Claude 3 Haiku's rates) where the model and its US profile are 0.8/4, as Langfuse's list also says",
};

/** Which table row (name and provider) a LiteLLM entry becomes, if any. */
export function tableModelFor(key: string, litellmProvider: string): { model: string; provider: Provider } | undefined {
  const name = key.toLowerCase();
  switch (litellmProvider) {
    case "openai":
      return OPENAI_MODELS.test(name) ? { model: name, provider: "openai" } : undefined;
    case "anthropic":
      return ANTHROPIC_MODELS.test(name) ? { model: name, provider: "anthropic" } : undefined;
    case "gemini": {
      const model = GEMINI_MODELS.exec(name)?.[1];
      return model === undefined ? undefined : { model, provider: "google" };
    }
    case "mistral": {
      const model = MISTRAL_MODELS.exec(name)?.[1];
      return model === undefined ? undefined : { model, provider: "mistral" };
    }
    case "bedrock":
    case "bedrock_converse":
      return BEDROCK_MODELS.test(name) ? { model: name, provider: "bedrock" } : undefined;
    case "azure":
      return name.startsWith("azure/") && OPENAI_MODELS.test(name.slice("azure/".length))
        ? { model: name, provider: "azure" }
        : undefined;
    default:
      return undefined;
  }
}

/** Per token → per million tokens, without floating-point tails (2.1875e-06 → 2.1875). */
export function perMillion(perToken: number): number {
  return Number((perToken * 1_000_000).toPrecision(10));
}

const RATE_KEYS = {
  input_cost_per_token: "input",
  output_cost_per_token: "output",
  cache_read_input_token_cost: "cacheRead",
  cache_creation_input_token_cost: "cacheWrite",
} as const;
type RateName = (typeof RATE_KEYS)[keyof typeof RATE_KEYS];
const TIER_KEY =
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_(\d+)k_tokens$/;

const isRate = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

/** One LiteLLM entry's rates and tiers, or undefined when it has no token price (or a price of 0 for both sides). */
export function ratesOf(entry: Readonly<Record<string, unknown>>): (Rates & { tiers?: PriceTier[] }) | undefined {
  const input = entry.input_cost_per_token;
  const output = entry.output_cost_per_token;
  if (!isRate(input) || !isRate(output) || (input === 0 && output === 0)) return undefined;
  const rates: { -readonly [K in keyof Rates]: Rates[K] } = { input: perMillion(input), output: perMillion(output) };
  if (isRate(entry.cache_read_input_token_cost)) rates.cacheRead = perMillion(entry.cache_read_input_token_cost);
  if (isRate(entry.cache_creation_input_token_cost))
    rates.cacheWrite = perMillion(entry.cache_creation_input_token_cost);
  const reasoning = entry.output_cost_per_reasoning_token;
  if (isRate(reasoning) && perMillion(reasoning) !== rates.output) rates.reasoning = perMillion(reasoning);
  const tiers = new Map<number, Partial<Record<RateName, number>>>();
  for (const [key, value] of Object.entries(entry)) {
    const match = TIER_KEY.exec(key);
    if (match === null || !isRate(value)) continue;
    const above = Number(match[2]) * 1000;
    const tier = tiers.get(above) ?? {};
    tier[RATE_KEYS[match[1] as keyof typeof RATE_KEYS]] = perMillion(value);
    tiers.set(above, tier);
  }
  if (tiers.size === 0) return rates;
  return {
    ...rates,
    tiers: [...tiers.entries()].sort(([a], [b]) => a - b).map(([above, tier]) => ({ above, ...orderedRates(tier) })),
  };
}

function orderedRates(rates: Partial<Record<RateName, number>>): Partial<Rates> {
  const ordered: Partial<Record<RateName, number>> = {};
  for (const name of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    const value = rates[name];
    if (value !== undefined) ordered[name] = value;
  }
  return ordered;
}

/** Every covered row of a LiteLLM price file (its parsed JSON), sorted by provider then model. */
export function litellmRows(file: unknown): SourceRow[] {
  if (typeof file !== "object" || file === null || Array.isArray(file)) {
    throw new TypeError("A LiteLLM price file is a JSON object of model name → entry");
  }
  const rows = new Map<string, SourceRow>();
  for (const [key, entry] of Object.entries(file)) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    const fields = entry as Record<string, unknown>;
    if (!CHAT_MODES.has(String(fields.mode)) || typeof fields.litellm_provider !== "string") continue;
    if (Object.hasOwn(EXCLUDED_ENTRIES, key)) continue;
    const target = tableModelFor(key, fields.litellm_provider);
    const rates = target === undefined ? undefined : ratesOf(fields);
    if (target === undefined || rates === undefined || rows.has(target.model)) continue;
    rows.set(target.model, { model: target.model, provider: target.provider, ...rates });
  }
  return [...rows.values()].sort(compareRows);
}

const PROVIDER_ORDER: readonly Provider[] = ["openai", "anthropic", "google", "mistral", "bedrock", "azure"];

export function compareRows(
  a: { provider: Provider; model: string },
  b: { provider: Provider; model: string },
): number {
  return PROVIDER_ORDER.indexOf(a.provider) - PROVIDER_ORDER.indexOf(b.provider) || a.model.localeCompare(b.model);
}

const RATE_NAMES = ["input", "output", "cacheRead", "cacheWrite", "reasoning"] as const;

/** Whether two prices charge the same (rates and tiers). */
export function samePrice(a: Rates & { tiers?: readonly PriceTier[] }, b: Rates & { tiers?: readonly PriceTier[] }) {
  return (
    RATE_NAMES.every((name) => a[name] === b[name]) && JSON.stringify(a.tiers ?? []) === JSON.stringify(b.tiers ?? [])
  );
}

/**
 * The rows of one read that the matching rules already price the same, so the table need not carry them (the
 * bundle stays small): a dated snapshot priced like its undated name (`gpt-4.1-2025-04-14` like `gpt-4.1`), an
 * `azure/` name priced like OpenAI's, and a Bedrock model's geography profiles when every one of them is priced like
 * the model itself (where one geography costs more, all of them stay, see model-name.ts).
 */
export function foldableModels(rows: readonly SourceRow[]): Set<string> {
  const byName = new Map(rows.map((row) => [canonicalModelName(row.model), row]));
  const foldable = new Set<string>();
  const regional = new Map<string, SourceRow[]>();
  for (const row of rows) {
    const canonical = canonicalModelName(row.model);
    const undated = withoutSnapshotDate(canonical);
    const target = undated === undefined ? undefined : byName.get(undated);
    if (target !== undefined && samePrice(row, target)) foldable.add(row.model);
    if (row.provider === "azure") {
      const openai = byName.get(canonical.slice("azure/".length));
      if (openai !== undefined && samePrice(row, openai)) foldable.add(row.model);
    }
    const base = withoutRegion(canonical);
    if (base !== undefined) regional.set(base, [...(regional.get(base) ?? []), row]);
  }
  for (const [base, profiles] of regional) {
    const baseRow = byName.get(base);
    if (baseRow !== undefined && profiles.every((profile) => samePrice(profile, baseRow))) {
      for (const profile of profiles) foldable.add(profile.model);
    }
  }
  return foldable;
}
