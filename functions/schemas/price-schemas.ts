/** Request schemas of the organisation prices routes (`/api/prices…`). */
import * as z from "zod/mini";
import { ORGANISATION_PRICE_LIMITS as PRICE } from "../store/prices/price-limits.js";
import { boundedNumber, jsonSchemaOf, optional, strictObject, wrongType } from "./fields.js";

const DAY_MESSAGE = "Must be a date YYYY-MM-DD from 2000-01-01 to 2099-12-31";

/** A UTC day `YYYY-MM-DD` that exists, in this century (prices of other centuries are mistakes). */
function priceDay() {
  const day = z.string({ error: (issue) => (issue.input === undefined ? "Required" : DAY_MESSAGE) }).check(
    z.regex(/^20\d{2}-\d{2}-\d{2}$/, { error: DAY_MESSAGE }),
    z.refine(
      (value) => {
        const parsed = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
      },
      { error: DAY_MESSAGE },
    ),
  );
  return jsonSchemaOf(day, { type: "string", format: "date" });
}

/** A rate in USD per million tokens. */
const rate = () => boundedNumber(0, PRICE.maxRate);

const tier = strictObject({
  above: boundedNumber(1, PRICE.maxTierAbove, { integer: true }),
  input: optional(rate()),
  output: optional(rate()),
  cacheRead: optional(rate()),
  cacheWrite: optional(rate()),
  reasoning: optional(rate()),
});

const tiers = z.array(tier, { error: wrongType("array") }).check(
  z.maxLength(PRICE.tiers, { error: `Must have at most ${PRICE.tiers} tiers` }),
  z.refine((list) => new Set(list.map((each) => each.above)).size === list.length, {
    error: "Each tier must have its own `above`",
  }),
);

/** PUT /api/prices/{model}: a model's rates (USD per million tokens) from a day on. */
export const putPriceBody = strictObject({
  effectiveFrom: priceDay(),
  input: rate(),
  output: rate(),
  cacheRead: optional(rate()),
  cacheWrite: optional(rate()),
  reasoning: optional(rate()),
  tiers: optional(tiers),
});
export type PutPriceBody = z.output<typeof putPriceBody>;

/** DELETE /api/prices/{model}: one dated price (`effectiveFrom`), or without it every price of the model. */
export const deletePriceQuery = strictObject({ effectiveFrom: z.optional(priceDay()) });
export type DeletePriceQuery = z.output<typeof deletePriceQuery>;
