/**
 * The answer of POST /api/sdk/metrics, field for field as functions/analytics/metrics-query.ts builds it (full zod,
 * for the OpenAPI document and the tests; the handler never imports it). Registered in response-schemas.ts.
 */
import * as z from "zod";
import { MEASURES, METRIC_GRANULARITIES } from "../domain/metrics-measures.js";

const measureValue = z
  .number()
  .nullable()
  .describe(
    "The measure over the row's time and dimensions; null where it has no value (a rate or percentile of nothing)",
  );

const measures = Object.fromEntries(MEASURES.map((measure) => [measure, measureValue.optional()])) as Record<
  (typeof MEASURES)[number],
  z.ZodOptional<typeof measureValue>
>;

export const metricsRow = z.strictObject({
  time: z
    .string()
    .optional()
    .describe(
      "The row's UTC day (`YYYY-MM-DD`, granularity day) or hour start (ISO, granularity hour); absent for total",
    ),
  agent: z.string().optional().describe("The agent (grouped by agent)"),
  user: z.string().optional().describe("The external user (grouped by user)"),
  model: z.string().nullable().optional().describe("The model (grouped by model); null: calls without a model name"),
  tool: z.string().optional().describe("The tool (grouped by tool)"),
  ...measures,
});

export const metricsResponse = z.strictObject({
  granularity: z.enum(METRIC_GRANULARITIES),
  from: z.string().describe("The first day (or hour start) covered"),
  to: z.string().describe("The last day (or hour start) covered, inclusive"),
  rows: z.array(metricsRow).describe("One page of rows: by time, then agent or user, then model or tool"),
  nextCursor: z.string().nullable().describe("Pass back as `cursor` with the same query for the next page"),
  agentsWithoutStats: z
    .int()
    .nonnegative()
    .describe("Agents a tenant-wide answer leaves out (it sums the 100 agents with the most sessions)"),
});
