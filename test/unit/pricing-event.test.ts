/**
 * priceEvent (functions/pricing/price-event.ts): the rule applied to every event at ingest — a reported cost
 * wins; else a model call (model or usage) is priced from the table or the organisation's prices at its
 * `occurredAt` (else `createdAt`) day; anything else has no cost. Expected costs are computed from the
 * shipped table's row, not restated.
 */
import { describe, expect, it } from "vitest";
import { needsPricing, priceEvent } from "../../functions/pricing/price-event.js";
import { modelPriceFile, priceRows } from "../../functions/pricing/price-table.js";

const CREATED_AT = "2026-11-26T10:00:00.000Z";
const row = (model: string) => {
  const found = priceRows(modelPriceFile()).filter((each) => each.model === model);
  const newest = found.sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? 1 : -1))[0];
  if (newest === undefined) throw new Error(`no row for ${model}`);
  return newest;
};

describe("priceEvent", () => {
  it("prices a model call from the table: input and output at the row's rates, the row's first day", () => {
    // Prepare
    const price = row("gpt-4o-mini");
    const usage = { promptTokens: 1200, completionTokens: 85, totalTokens: 1285 };
    // Act
    const cost = priceEvent({ model: "gpt-4o-mini", usage }, CREATED_AT);
    // Assess
    expect(cost.costSource).toBe("table");
    expect(cost.priceEffectiveFrom).toBe(price.effectiveFrom);
    expect(cost.estimatedCost).toBeCloseTo((1200 * price.input + 85 * price.output) / 1e6, 12);
  });

  it("bills cache reads and reasoning at their own rates (parts of promptTokens and completionTokens)", () => {
    const price = row("gpt-4o-mini");
    const usage = { promptTokens: 1000, cacheReadTokens: 400, completionTokens: 50, reasoningTokens: 10 };
    const cost = priceEvent({ model: "gpt-4o-mini", usage }, CREATED_AT);
    const expected = (600 * price.input + 400 * (price.cacheRead ?? price.input) + 50 * price.output) / 1e6;
    expect(cost.estimatedCost).toBeCloseTo(expected, 12);
  });

  it("keeps a reported cost, whatever the model and usage say", () => {
    const cost = priceEvent({ model: "gpt-4o-mini", usage: { promptTokens: 10 }, estimatedCost: 0.5 }, CREATED_AT);
    expect(cost).toEqual({ estimatedCost: 0.5, costSource: "reported" });
  });

  it("marks a reported cost as such on an event that is no model call", () => {
    expect(priceEvent({ estimatedCost: 0 }, CREATED_AT)).toEqual({ estimatedCost: 0, costSource: "reported" });
  });

  it("leaves an event with neither cost, model nor usage without a cost source", () => {
    expect(priceEvent({}, CREATED_AT)).toEqual({});
    expect(needsPricing({})).toBe(false);
  });

  it("says unpriced, with no cost, for an unknown model, a model without usage, usage without a model", () => {
    expect(priceEvent({ model: "our-own-llm", usage: { promptTokens: 10 } }, CREATED_AT)).toEqual({
      costSource: "unpriced",
    });
    expect(priceEvent({ model: "gpt-4o-mini" }, CREATED_AT)).toEqual({ costSource: "unpriced" });
    expect(priceEvent({ usage: { promptTokens: 10 } }, CREATED_AT)).toEqual({ costSource: "unpriced" });
    expect(priceEvent({ model: "__proto__", usage: { promptTokens: 10 } }, CREATED_AT)).toEqual({
      costSource: "unpriced",
    });
  });

  it("prices at occurredAt's day, not createdAt's: before the model's first row the call is unpriced", () => {
    const price = row("gpt-4o-mini");
    const dayBefore = new Date(Date.parse(`${price.effectiveFrom}T00:00:00Z`) - 1).toISOString();
    const event = { model: "gpt-4o-mini", usage: { promptTokens: 10 }, occurredAt: dayBefore };
    expect(priceEvent(event, CREATED_AT)).toEqual({ costSource: "unpriced" });
    const onTheDay = { ...event, occurredAt: `${price.effectiveFrom}T00:00:00.000Z` };
    expect(priceEvent(onTheDay, CREATED_AT).costSource).toBe("table");
  });

  it("takes the organisation's price before the table's, from its own day on", () => {
    const organisationPrices = [{ model: "gpt-4o-mini", effectiveFrom: "2026-10-01", input: 1, output: 2 }];
    const usage = { promptTokens: 1_000_000, completionTokens: 1_000_000 };
    const cost = priceEvent({ model: "gpt-4o-mini", usage }, CREATED_AT, organisationPrices);
    expect(cost).toEqual({ estimatedCost: 3, costSource: "organisation", priceEffectiveFrom: "2026-10-01" });
    const earlier = priceEvent(
      { model: "gpt-4o-mini", usage, occurredAt: "2026-09-30T23:59:59.000Z" },
      CREATED_AT,
      organisationPrices,
    );
    expect(earlier.costSource).toBe("table");
  });
});
