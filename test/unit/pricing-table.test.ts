/**
 * The shipped price table (functions/pricing/model-prices.json): every row cites a source with an https URL and a
 * date, has a valid effective day and non-negative rates; a row without a source is a failure; the providers and
 * models the issue asks for are there; the data stays small enough for the bundles.
 */
import { describe, expect, it } from "vitest";
import { modelPriceFile, PROVIDERS, type PriceFile, priceRows } from "../../functions/pricing/price-table.js";
import { isDay, priceFileProblems } from "../../scripts/model-prices/check-price-file.js";

const rows = priceRows(modelPriceFile());
const names = new Set(rows.map((row) => row.model));

describe("the model price table", () => {
  it("has no problem the checker knows of", () => {
    expect(priceFileProblems(modelPriceFile())).toEqual([]);
  });

  it("gives every row a source with an https URL, a commit or page, and a date, and a valid effective day", () => {
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) {
      const source = modelPriceFile().sources[row.source];
      expect(source, `${row.model} cites ${row.source}`).toBeDefined();
      expect(source?.url, row.model).toMatch(/^https:\/\/\S+$/);
      expect(isDay(source?.asOf), row.model).toBe(true);
      expect(isDay(row.effectiveFrom), row.model).toBe(true);
    }
  });

  it("cites a public list (a GitHub file) at the commit read, in its URL too", () => {
    for (const source of Object.values(modelPriceFile().sources)) {
      if (!source.url.startsWith("https://github.com/")) continue;
      expect(source.commit, source.url).toMatch(/^[0-9a-f]{40}$/);
      expect(source.url).toContain(`/blob/${source.commit}/`);
    }
  });

  it("has non-negative finite rates, input and output on every row, tiers above a whole number of tokens", () => {
    for (const row of rows) {
      for (const rate of [row.input, row.output, row.cacheRead, row.cacheWrite, row.reasoning]) {
        if (rate !== undefined) {
          expect(Number.isFinite(rate) && rate >= 0, row.model).toBe(true);
        }
      }
      for (const tier of row.tiers ?? []) {
        expect(Number.isInteger(tier.above) && tier.above > 0, row.model).toBe(true);
      }
    }
  });

  it("fails a row without a source, with an unknown source, a bad day or a negative rate", () => {
    // Prepare: the shipped file, broken one way at a time.
    const block = modelPriceFile().prices[0];
    if (block === undefined) throw new Error("the table has no block");
    const withBlock = (changed: Record<string, unknown>): PriceFile =>
      ({ ...modelPriceFile(), prices: [{ ...block, ...changed }, ...modelPriceFile().prices.slice(1)] }) as PriceFile;
    const { source: _source, ...withoutSource } = block;

    // Act + Assess
    expect(priceFileProblems({ ...modelPriceFile(), prices: [withoutSource] })).toContain("block 1: no source");
    expect(priceFileProblems(withBlock({ source: "nowhere" }))).toContain("block 1: source nowhere is not in sources");
    expect(priceFileProblems(withBlock({ effectiveFrom: "2026-02-30" }))).toContain(
      "block 1: effectiveFrom is not a YYYY-MM-DD day",
    );
    expect(priceFileProblems(withBlock({ models: { openai: { "gpt-test": { input: -1, output: 1 } } } }))).toContain(
      "block 1 openai/gpt-test: input and output must be rates ≥ 0",
    );
    expect(
      priceFileProblems({
        ...modelPriceFile(),
        sources: { ...modelPriceFile().sources, bare: { title: "x", asOf: "2026-01-01" } },
      }),
    ).toContain("source bare: no https url");
  });

  it("fails two rows answering to the same name on the same day", () => {
    const file = {
      sources: modelPriceFile().sources,
      prices: [
        {
          source: "litellm-2026-07-24",
          effectiveFrom: "2026-07-24",
          models: {
            bedrock: { "amazon.nova-pro-v1:0": { input: 1, output: 1 }, "amazon.nova-pro-v2": { input: 2, output: 2 } },
          },
        },
      ],
    };
    expect(priceFileProblems(file)).toContain("block 1 amazon.nova-pro-v2: same name and day as amazon.nova-pro-v1:0");
  });

  it("covers every provider asked for, current and previous generation", () => {
    const count = Object.fromEntries(
      PROVIDERS.map((provider) => [provider, rows.filter((row) => row.provider === provider).length]),
    );
    for (const provider of PROVIDERS) expect(count[provider], provider).toBeGreaterThan(5);
    for (const model of [
      // OpenAI
      "gpt-5",
      "gpt-5-mini",
      "gpt-5-nano",
      "gpt-4.1",
      "gpt-4.1-mini",
      "gpt-4o",
      "gpt-4o-mini",
      "o1",
      "o3",
      "o3-mini",
      "o4-mini",
      // Anthropic
      "claude-opus-4-1",
      "claude-opus-4-20250514",
      "claude-sonnet-4-5",
      "claude-sonnet-4-20250514",
      "claude-haiku-4-5",
      "claude-3-7-sonnet-20250219",
      "claude-3-5-sonnet-20241022",
      "claude-3-5-haiku-20241022",
      // Google
      "gemini-2.5-pro",
      "gemini-2.5-flash",
      "gemini-2.5-flash-lite",
      "gemini-2.0-flash",
      // Mistral
      "mistral-large-latest",
      "mistral-medium-latest",
      "mistral-small-latest",
      "codestral-latest",
      // Bedrock: foundation models and cross-region profiles
      "anthropic.claude-sonnet-4-5-20250929-v1:0",
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "anthropic.claude-3-5-sonnet-20241022-v2:0",
      "amazon.nova-pro-v1:0",
      "amazon.nova-lite-v1:0",
      "amazon.nova-micro-v1:0",
      "meta.llama3-3-70b-instruct-v1:0",
      "meta.llama4-maverick-17b-instruct-v1:0",
      // Azure OpenAI (where its price differs from OpenAI's; the others match through the name)
      "azure/gpt-4o-mini",
    ]) {
      expect(names.has(model), model).toBe(true);
    }
  });

  it("stays small: the compact JSON is under 32 KiB (the bundles have a 300 KiB budget)", () => {
    expect(JSON.stringify(modelPriceFile()).length).toBeLessThan(32 * 1024);
  });
});
