/**
 * Phase: what pricing at ingest costs (issue 31). Two parts:
 *
 *   calls    `priceEvent` (functions/pricing/price-event.ts) alone, per event, for each way an event is priced: a
 *            reported cost (no work), a model named as the table names it, one the table knows only after
 *            normalising (a Bedrock inference-profile ARN), one nobody prices, and one the organisation prices, its
 *            500 prices (the limit) handed over as the route hands them over. CPU time per call, the median of the
 *            rounds.
 *   path     POST /api/sdk/events' handler in this process (no HTTP), one body per kind of pricing, side by side:
 *            latency, CPU and the DynamoDB commands per request (run.ts calls it with the bench's warm container).
 *
 * `calls` runs alone too, with nothing started:
 *   node --import tsx bench/phases/pricing-cost.ts      (BENCH_PRICING_CALLS, 20,000 per round; 5 rounds)
 */
import { priceEvent } from "../../functions/pricing/price-event.js";
import { buildPriceIndex } from "../../functions/pricing/price-lookup.js";
import type { OrganisationPrice } from "../../functions/pricing/price-usage.js";
import { ORGANISATION_PRICE_LIMITS } from "../../functions/store/prices/price-limits.js";
import type { DynamoWork, HandlerTiming } from "./handlers.js";

/** The organisation's own model in the benches (one of its ORGANISATION_PRICE_LIMITS.pricesPerOrganisation prices). */
export const OWN_MODEL = "acme-support-llama-ft";

/** One way an event is priced, as an event's fields. */
export interface PricingCase {
  readonly name: string;
  readonly fields: { model?: string; usage?: Record<string, number>; estimatedCost?: number };
  /** The organisation's prices come into it. */
  readonly organisation: boolean;
}

const USAGE = { promptTokens: 1_200, completionTokens: 300, cacheReadTokens: 400 };

export const PRICING_CASES: readonly PricingCase[] = [
  { name: "reported cost (no pricing)", fields: { estimatedCost: 0.0021 }, organisation: false },
  { name: "table, exact name (gpt-4o-mini)", fields: { model: "gpt-4o-mini", usage: USAGE }, organisation: false },
  {
    name: "table, normalised name (a Bedrock inference-profile ARN)",
    fields: {
      model: "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      usage: USAGE,
    },
    organisation: false,
  },
  {
    name: "unpriced (a model nobody prices)",
    fields: { model: "our-own-llama-7b", usage: USAGE },
    organisation: false,
  },
  { name: "organisation price (500 prices held)", fields: { model: OWN_MODEL, usage: USAGE }, organisation: true },
];

/** The organisation's prices at the limit: its own model, and made-up others. */
export function organisationPrices(): OrganisationPrice[] {
  const count = ORGANISATION_PRICE_LIMITS.pricesPerOrganisation;
  return Array.from({ length: count }, (_, index) => ({
    model: index === 0 ? OWN_MODEL : `acme-model-${index}`,
    effectiveFrom: "2026-01-01",
    input: 0.2 + index / 1000,
    output: 0.8,
  }));
}

export interface PricingCallRow {
  readonly name: string;
  readonly costSource: string;
  /** CPU microseconds per priced event, the routes' way: the organisation's prices indexed once per read. */
  readonly microseconds: number;
  /** The same with the index of the organisation's prices built for every event (the single-event route before 2026-11-27). */
  readonly microsecondsRebuilt: number;
}

function cpuMicroseconds(work: () => void, iterations: number): number {
  const before = process.cpuUsage();
  for (let index = 0; index < iterations; index++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / iterations;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** `priceEvent` per event for each case: the median of `rounds` rounds of `iterations` calls, after a warm-up round. */
export function measurePricingCalls(options: { iterations: number; rounds: number }): PricingCallRow[] {
  const prices = organisationPrices();
  const indexed = buildPriceIndex(prices);
  const createdAt = new Date().toISOString();
  return PRICING_CASES.map((pricingCase) => {
    const asRoutes = () => priceEvent(pricingCase.fields, createdAt, indexed);
    const rebuilt = () => priceEvent(pricingCase.fields, createdAt, prices);
    const costSource = String(asRoutes().costSource ?? "none");
    // The old way costs ~50× more per call: a fiftieth of the calls measures it as well, in a fiftieth of the time.
    const rebuiltIterations = Math.max(100, Math.round(options.iterations / 50));
    cpuMicroseconds(asRoutes, options.iterations / 10);
    cpuMicroseconds(rebuilt, rebuiltIterations / 10);
    const current: number[] = [];
    const before: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      current.push(cpuMicroseconds(asRoutes, options.iterations));
      before.push(cpuMicroseconds(rebuilt, rebuiltIterations));
    }
    return { name: pricingCase.name, costSource, microseconds: median(current), microsecondsRebuilt: median(before) };
  });
}

/** One kind of pricing through POST /api/sdk/events' handler. */
export interface PricingPathRow {
  readonly name: string;
  readonly timing: HandlerTiming;
  readonly work: DynamoWork;
  /** Requests not answered 201. */
  readonly failures: number;
}

export function pricingMarkdown(calls: readonly PricingCallRow[], path: readonly PricingPathRow[]): string[] {
  const baseline = path[0];
  const out = [
    "## 9. Pricing at ingest (issue 31)",
    "",
    "**Per event, `priceEvent` alone** (functions/pricing/price-event.ts; CPU time per call, the median of the rounds; " +
      `the organisation holds ${ORGANISATION_PRICE_LIMITS.pricesPerOrganisation} prices, the limit, indexed once per read of them as the routes do):`,
    "",
    "| how the event is priced | costSource | µs per event | µs with the organisation's index built per event (before 2026-11-27) |",
    "|---|---|---:|---:|",
    ...calls.map(
      (row) =>
        `| ${row.name} | ${row.costSource} | ${row.microseconds.toFixed(2)} | ${row.microsecondsRebuilt.toFixed(2)} |`,
    ),
    "",
  ];
  if (baseline !== undefined) {
    out.push(
      "**POST /api/sdk/events, one body per kind of pricing, side by side** (the handler in this process, no HTTP, " +
        "sequential on the warm container; the organisation's prices cached as on a warm Lambda container):",
      "",
      "| body | p50 ms | p95 ms | CPU ms / request | ÷ reported cost (p50) | DynamoDB commands (typical request) | round trips | RRU / request | WRU / request |",
      "|---|---:|---:|---:|---:|---|---:|---:|---:|",
      ...path.map(
        (row) =>
          `| ${row.name} | ${row.timing.latency.p50.toFixed(2)} | ${row.timing.latency.p95.toFixed(2)} | ${row.timing.cpuMsMean.toFixed(3)} | ${(row.timing.latency.p50 / baseline.timing.latency.p50).toFixed(2)} | ${row.work.typicalCommands.signature} (${(row.work.typicalCommands.share * 100).toFixed(0)} %) | ${row.work.roundTrips.mean.toFixed(2)} | ${row.work.readUnits.mean.toFixed(2)} | ${row.work.writeUnits.mean.toFixed(2)} |`,
      ),
      "",
      "Pricing reads nothing per event: the table is in the bundle, and an organisation's prices are one Query per " +
        "container per minute (functions/pricing/organisation-prices.ts), absorbed by the warm-up here.",
      "",
    );
  }
  return out;
}

if (import.meta.main) {
  const iterations = Number(process.env.BENCH_PRICING_CALLS ?? 20_000);
  const rows = measurePricingCalls({ iterations, rounds: 5 });
  process.stdout.write(`${pricingMarkdown(rows, []).join("\n")}\n`);
}
