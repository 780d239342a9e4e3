/**
 * Costs (functions/pricing/cost.ts, price-usage.ts): hand-computed from the rates the sources give (written here,
 * per million tokens) for a few models of each provider, under ats's usage convention (cached tokens are part of
 * promptTokens, reasoning tokens part of completionTokens); long-prompt tiers; the day a price takes effect; an
 * organisation's price winning from its own day on.
 */
import { describe, expect, it } from "vitest";
import { billedTokens, costOf } from "../../functions/pricing/cost.js";
import { modelPriceFile, priceRows, type Rates } from "../../functions/pricing/price-table.js";
import { type OrganisationPrice, priceUsage } from "../../functions/pricing/price-usage.js";
import type { TokenUsage } from "../../functions/pricing/usage.js";

const AT = "2026-11-01T12:00:00Z";
const M = 1_000_000;
/** Within a millionth of a dollar: far below a cent. */
const DIGITS = 6;

const rows = priceRows(modelPriceFile());

/** The shipped row of `model` carries the rates the test computes with (so the arithmetic below is the table's). */
function expectRates(model: string, rates: Partial<Rates> & { tiers?: unknown }): void {
  const row = rows.find((each) => each.model === model);
  expect(row, model).toBeDefined();
  expect(row).toMatchObject(rates);
}

function tableCost(model: string, usage: TokenUsage): number | null {
  return priceUsage({ model, usage, at: AT }).cost;
}

describe("cost from the table, by provider", () => {
  it("OpenAI gpt-4o: cached prompt tokens at the cache rate, the rest at input", () => {
    expectRates("gpt-4o", { input: 2.5, output: 10, cacheRead: 1.25 });
    const cost = tableCost("gpt-4o", { promptTokens: 12_000, cacheReadTokens: 4_000, completionTokens: 800 });
    expect(cost).toBeCloseTo((8_000 * 2.5 + 4_000 * 1.25 + 800 * 10) / M, DIGITS); // $0.033
  });

  it("OpenAI gpt-5 with mostly cached prompt, and o3 with reasoning tokens billed as output", () => {
    expectRates("gpt-5", { input: 1.25, output: 10, cacheRead: 0.125 });
    expect(tableCost("gpt-5", { promptTokens: 100_000, cacheReadTokens: 60_000, completionTokens: 2_000 })).toBeCloseTo(
      (40_000 * 1.25 + 60_000 * 0.125 + 2_000 * 10) / M, // $0.0775
      DIGITS,
    );
    expectRates("o3", { input: 2, output: 8, cacheRead: 0.5 });
    expect(tableCost("o3", { promptTokens: 5_000, completionTokens: 3_000, reasoningTokens: 2_500 })).toBeCloseTo(
      (5_000 * 2 + 3_000 * 8) / M, // $0.034: reasoning is inside completionTokens, at the output rate
      DIGITS,
    );
  });

  it("Anthropic claude-sonnet-4-5: cache reads and writes at their own rates (Anthropic's input_tokens mapped in)", () => {
    expectRates("claude-sonnet-4-5", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    // Anthropic reports input_tokens 2,000, cache_read_input_tokens 10,000, cache_creation_input_tokens 5,000.
    const usage = {
      promptTokens: 2_000 + 10_000 + 5_000,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 5_000,
      completionTokens: 1_000,
    };
    expect(tableCost("claude-sonnet-4-5-20250929", usage)).toBeCloseTo(
      (2_000 * 3 + 10_000 * 0.3 + 5_000 * 3.75 + 1_000 * 15) / M, // $0.04275
      DIGITS,
    );
    expectRates("claude-haiku-4-5", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 });
    expect(tableCost("claude-haiku-4-5", { promptTokens: 10_000, completionTokens: 1_000 })).toBeCloseTo(
      (10_000 * 1 + 1_000 * 5) / M,
      DIGITS,
    );
  });

  it("Anthropic's long-context tier: above 200,000 prompt tokens (cached included) the whole call at the tier", () => {
    expectRates("claude-sonnet-4-5", {
      tiers: [{ above: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 }],
    });
    const long = { promptTokens: 250_000, cacheReadTokens: 50_000, completionTokens: 2_000 };
    expect(tableCost("claude-sonnet-4-5", long)).toBeCloseTo((200_000 * 6 + 50_000 * 0.6 + 2_000 * 22.5) / M, DIGITS); // $1.275
    expect(tableCost("claude-sonnet-4-5", { promptTokens: 200_000, completionTokens: 0 })).toBeCloseTo(
      (200_000 * 3) / M, // exactly 200,000 is not above it
      DIGITS,
    );
  });

  it("Google gemini-2.5-pro below and above its 200k tier, and gemini-2.5-flash", () => {
    expectRates("gemini-2.5-pro", {
      input: 1.25,
      output: 10,
      cacheRead: 0.125,
      tiers: [{ above: 200_000, input: 2.5, output: 15, cacheRead: 0.25 }],
    });
    expect(tableCost("models/gemini-2.5-pro", { promptTokens: 150_000, completionTokens: 1_000 })).toBeCloseTo(
      (150_000 * 1.25 + 1_000 * 10) / M, // $0.1975
      DIGITS,
    );
    // Gemini's candidatesTokenCount 2,000 + thoughtsTokenCount 3,000 → completionTokens 5,000, reasoningTokens 3,000.
    const long = { promptTokens: 300_000, cacheReadTokens: 100_000, completionTokens: 5_000, reasoningTokens: 3_000 };
    expect(tableCost("gemini-2.5-pro", long)).toBeCloseTo((200_000 * 2.5 + 100_000 * 0.25 + 5_000 * 15) / M, DIGITS); // $0.6
    expectRates("gemini-2.5-flash", { input: 0.3, output: 2.5, cacheRead: 0.03 });
    expect(
      tableCost("gemini-2.5-flash", { promptTokens: 20_000, cacheReadTokens: 10_000, completionTokens: 500 }),
    ).toBeCloseTo(
      (10_000 * 0.3 + 10_000 * 0.03 + 500 * 2.5) / M, // $0.00455
      DIGITS,
    );
  });

  it("Mistral: mistral-large-latest and codestral-latest", () => {
    expectRates("mistral-large-latest", { input: 0.5, output: 1.5 });
    expect(tableCost("mistral/mistral-large-latest", { promptTokens: 40_000, completionTokens: 2_000 })).toBeCloseTo(
      (40_000 * 0.5 + 2_000 * 1.5) / M,
      DIGITS,
    );
    expectRates("codestral-latest", { input: 1, output: 3 });
    expect(tableCost("codestral-latest", { promptTokens: 1_000, completionTokens: 1_000 })).toBeCloseTo(
      (1_000 * 1 + 1_000 * 3) / M,
      DIGITS,
    );
  });

  it("Bedrock: a US cross-region profile at its own rate, Nova Pro by ARN", () => {
    expectRates("us.anthropic.claude-sonnet-4-5-20250929-v1:0", { input: 3.3, output: 16.5 });
    expect(
      tableCost("us.anthropic.claude-sonnet-4-5-20250929-v1:0", { promptTokens: 10_000, completionTokens: 1_000 }),
    ).toBeCloseTo((10_000 * 3.3 + 1_000 * 16.5) / M, DIGITS); // $0.0495
    expectRates("amazon.nova-pro-v1:0", { input: 0.8, output: 3.2 });
    expect(
      tableCost("arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0", {
        promptTokens: 100_000,
        completionTokens: 10_000,
      }),
    ).toBeCloseTo((100_000 * 0.8 + 10_000 * 3.2) / M, DIGITS); // $0.112
  });

  it("Azure: azure/gpt-4o-mini at Azure's own rate, azure/gpt-4o at OpenAI's", () => {
    expectRates("azure/gpt-4o-mini", { input: 0.165, output: 0.66, cacheRead: 0.075 });
    expect(tableCost("azure/gpt-4o-mini", { promptTokens: 1_000_000, completionTokens: 100_000 })).toBeCloseTo(
      0.165 + (100_000 * 0.66) / M, // $0.231
      DIGITS,
    );
    expect(tableCost("azure/gpt-4o", { promptTokens: 1_000, completionTokens: 1_000 })).toBeCloseTo(
      (1_000 * 2.5 + 1_000 * 10) / M,
      DIGITS,
    );
  });
});

describe("prices over time in the shipped table", () => {
  const usage = { promptTokens: 100_000, completionTokens: 10_000 };
  const on = (model: string, day: string) => priceUsage({ model, usage, at: `${day}T12:00:00Z` });

  it("gemini-3.6-flash: LiteLLM's price from 2026-07-24, the introductory cut from 2026-08-14, the step-up from 2027-01-01", () => {
    expect(on("gemini-3.6-flash", "2026-08-13")).toMatchObject({
      cost: (100_000 * 1.5 + 10_000 * 7.5) / M,
      priceEffectiveFrom: "2026-07-24",
    });
    expect(on("gemini-3.6-flash", "2026-08-14")).toMatchObject({
      cost: (100_000 * 0.75 + 10_000 * 3.75) / M,
      priceEffectiveFrom: "2026-08-14",
    });
    expect(on("gemini-3.6-flash", "2026-12-31")).toMatchObject({ priceEffectiveFrom: "2026-08-14" });
    expect(on("gemini-3.6-flash", "2027-01-01")).toMatchObject({
      cost: (100_000 * 1.5 + 10_000 * 7.5) / M,
      priceEffectiveFrom: "2027-01-01",
    });
  });

  it("gpt-5.6-terra: the price cut Langfuse's list records from 2026-07-31", () => {
    expect(on("gpt-5.6-terra", "2026-07-30")).toMatchObject({ cost: (100_000 * 2.5 + 10_000 * 15) / M });
    expect(on("gpt-5.6-terra", "2026-07-31")).toMatchObject({ cost: (100_000 * 2 + 10_000 * 12) / M });
  });

  it("before a model's first row, it is unpriced (no older price is guessed)", () => {
    expect(on("gemini-3.7-flash", "2026-08-13")).toMatchObject({
      costSource: "unpriced",
      unpricedReason: "no-price-in-effect",
    });
  });
});

describe("costOf, on prices of its own", () => {
  it("bills reasoning apart where the price says so, else at the output rate", () => {
    const usage = { promptTokens: 0, completionTokens: 1_000, reasoningTokens: 600 };
    expect(costOf(usage, { input: 1, output: 4, reasoning: 2 })).toBeCloseTo((400 * 4 + 600 * 2) / M, 12);
    expect(costOf(usage, { input: 1, output: 4 })).toBeCloseTo((1_000 * 4) / M, 12);
  });

  it("bills cache reads and writes at the input rate when the price has no cache rates", () => {
    const usage = { promptTokens: 1_000, cacheReadTokens: 300, cacheWriteTokens: 200, completionTokens: 0 };
    expect(costOf(usage, { input: 2, output: 8 })).toBeCloseTo((1_000 * 2) / M, 12);
  });

  it("takes the highest tier the prompt is above; missing tier rates fall back to the base", () => {
    const price = {
      input: 1,
      output: 2,
      cacheRead: 0.1,
      tiers: [
        { above: 256_000, input: 3 },
        { above: 128_000, input: 2, output: 4 },
      ],
    };
    expect(costOf({ promptTokens: 100_000, completionTokens: 10 }, price)).toBeCloseTo((100_000 * 1 + 10 * 2) / M, 12);
    expect(costOf({ promptTokens: 200_000, completionTokens: 10 }, price)).toBeCloseTo((200_000 * 2 + 10 * 4) / M, 12);
    expect(costOf({ promptTokens: 300_000, completionTokens: 10, cacheReadTokens: 100_000 }, price)).toBeCloseTo(
      (200_000 * 3 + 100_000 * 0.1 + 10 * 2) / M,
      12,
    );
  });

  it("splits usage by the convention: parts inside their wholes, totalTokens − completionTokens for a missing prompt", () => {
    expect(
      billedTokens({
        promptTokens: 1_000,
        cacheReadTokens: 400,
        cacheWriteTokens: 100,
        completionTokens: 50,
        reasoningTokens: 20,
      }),
    ).toEqual({
      input: 500,
      cacheRead: 400,
      cacheWrite: 100,
      output: 30,
      reasoning: 20,
    });
    expect(billedTokens({ totalTokens: 1_500, completionTokens: 500 })).toMatchObject({ input: 1_000, output: 500 });
    // Inconsistent counts (a part above its whole) bill the part as reported, never a negative remainder.
    expect(billedTokens({ promptTokens: 100, cacheReadTokens: 300 })).toMatchObject({ input: 0, cacheRead: 300 });
  });

  it("prices zero tokens at 0", () => {
    expect(priceUsage({ model: "gpt-4o", usage: { promptTokens: 0, completionTokens: 0 }, at: AT })).toMatchObject({
      cost: 0,
      costSource: "table",
    });
  });
});

describe("organisation prices", () => {
  const usage = { promptTokens: 10_000, completionTokens: 1_000 };
  const organisationPrices: OrganisationPrice[] = [
    { model: "gpt-4o", input: 2, output: 8, effectiveFrom: "2026-10-01" },
    { model: "azure/our-gpt4o-deployment", input: 2.5, output: 10, effectiveFrom: "2026-01-01" },
  ];

  it("win over the table from their own day on, and not before", () => {
    expect(priceUsage({ model: "gpt-4o", usage, at: "2026-09-30T23:59:59Z", organisationPrices })).toEqual({
      cost: (10_000 * 2.5 + 1_000 * 10) / M,
      costSource: "table",
      priceEffectiveFrom: "2026-07-24",
      matchedModel: "gpt-4o",
    });
    expect(priceUsage({ model: "gpt-4o", usage, at: "2026-10-01T00:00:00Z", organisationPrices })).toEqual({
      cost: (10_000 * 2 + 1_000 * 8) / M,
      costSource: "organisation",
      priceEffectiveFrom: "2026-10-01",
      matchedModel: "gpt-4o",
    });
  });

  it("match like the table's rows (prefixes, snapshots), and price custom Azure deployment names", () => {
    expect(priceUsage({ model: "openai/gpt-4o-2024-08-06", usage, at: AT, organisationPrices })).toMatchObject({
      costSource: "organisation",
      matchedModel: "gpt-4o",
    });
    expect(priceUsage({ model: "azure/our-gpt4o-deployment", usage, at: AT, organisationPrices })).toMatchObject({
      cost: (10_000 * 2.5 + 1_000 * 10) / M,
      costSource: "organisation",
    });
    expect(priceUsage({ model: "azure/our-gpt4o-deployment", usage, at: AT })).toMatchObject({
      costSource: "unpriced",
    });
  });

  it("leave other models to the table", () => {
    expect(priceUsage({ model: "gpt-4o-mini", usage, at: AT, organisationPrices })).toMatchObject({
      costSource: "table",
    });
  });
});
