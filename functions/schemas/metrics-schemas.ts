/**
 * POST /api/sdk/metrics: a small, bounded query over the counted rollups (docs/metrics.md). The schema bounds
 * every list; which combinations the counted items can answer is the planner's to say
 * (functions/domain/metrics-plan.ts), each refusal a 400 on its field.
 */
import * as z from "zod/mini";
import {
  METRICS_LIMITS as LIMIT,
  MEASURES,
  METRIC_DIMENSIONS,
  METRIC_GRANULARITIES,
} from "../domain/metrics-measures.js";
import { boundedNumber, enumeration, name, optional, strictObject, text } from "./fields.js";
import { isoDay, orderedRange } from "./read-schemas.js";

/** A list of distinct items, at least one and at most `max`. */
function distinctList<T extends z.ZodMiniType>(item: T, max: number, what: string) {
  return z.array(item, { error: `Must be an array of ${what}` }).check(
    z.minLength(1, { error: `Must name at least one ${what.replace(/s$/, "")}` }),
    z.maxLength(max, { error: `Must name at most ${max} ${what}` }),
    z.refine((values) => new Set(values).size === values.length, { error: `Must not repeat ${what}` }),
  );
}

/** `schema`, or `fallback` when absent (`undefined` or `null`). */
function withDefault<T extends z.ZodMiniType>(schema: T, fallback: z.output<T>) {
  return z.pipe(
    z.nullish(schema),
    z.transform((value: z.output<T> | null | undefined) => value ?? fallback),
  );
}

const names = () => distinctList(name(), LIMIT.maxFilterValues, "names");

const filters = strictObject({
  agent: optional(names()),
  user: optional(names()),
  model: optional(names()),
  tool: optional(names()),
  score: optional(name()),
});

export const metricsQueryBody = strictObject({
  from: optional(isoDay),
  to: optional(isoDay),
  granularity: withDefault(enumeration(METRIC_GRANULARITIES), "day"),
  measures: distinctList(enumeration(MEASURES), MEASURES.length, "measures"),
  groupBy: withDefault(
    z.array(enumeration(METRIC_DIMENSIONS), { error: "Must be an array of dimensions" }).check(
      z.maxLength(2, { error: "Must name at most 2 dimensions" }),
      z.refine((values) => new Set(values).size === values.length, { error: "Must not repeat dimensions" }),
    ),
    [],
  ),
  filters: withDefault(filters, {
    agent: undefined,
    user: undefined,
    model: undefined,
    tool: undefined,
    score: undefined,
  }),
  limit: withDefault(boundedNumber(1, LIMIT.maxLimit, { integer: true }), LIMIT.defaultLimit),
  cursor: optional(text(2048)),
}).check(z.superRefine(orderedRange));
export type MetricsQueryBody = z.output<typeof metricsQueryBody>;
