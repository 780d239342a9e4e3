/**
 * `npm run bench:duration-bins`: what the fine duration bins cost and how accurate they are, for several bin
 * widths side by side (functions/domain/duration-bins.ts; the decision in docs/decisions.md).
 *
 * For agent-days of N ended sessions with realistic duration spreads (seeded samples, 1 ms – 1 h): how many
 * bins are occupied, the size of the day's duration item (`DAY#<day>#DUR`, as the rollup writes it: keys, tag,
 * day, ttl, kind and one `b<bin>` counter per occupied bin) in bytes by DynamoDB's sizing rules, the write units
 * one ADD to it is billed, and the largest relative error of p50/p95/p99 against the exact nearest-rank
 * percentiles of the same samples. Pure computation: no table, no network.
 */
import {
  durationBin,
  durationBinAttribute,
  mergeDurationBins,
  percentileFromBins,
} from "../functions/domain/duration-bins.js";
import { rollupDurationsKey, rollupPartition, tenant } from "../functions/store/table/keys.js";
import {
  DURATION_DISTRIBUTIONS,
  type DurationDistribution,
  exactPercentile,
  sampleDurations,
} from "../test/support/duration-samples.js";
import { itemBytes } from "./harness/capacity-model.js";

const GROWTHS = [1.02, 1.03, 1.04, 1.05, 1.08] as const;
const SESSIONS_PER_DAY = [10, 100, 1_000, 10_000] as const;
/** Shapes an agent's day plausibly has (the worst case, log-uniform over the whole range, reported apart). */
const REALISTIC = [
  "log-normal, median 10 s, σ 1",
  "log-normal, median 2 s, σ 2",
  "exponential, mean 30 s",
  "bimodal: 80 % ~150 ms, 20 % ~20 min",
];
const WORST = "log-uniform 1 ms – 1 h";

function distribution(name: string): DurationDistribution {
  const found = DURATION_DISTRIBUTIONS.find((shape) => shape.name === name);
  if (found === undefined) throw new Error(`No distribution ${name}`);
  return found;
}

function binsOf(durations: readonly number[], growth: number): Map<number, number> {
  const bins = new Map<number, number>();
  for (const duration of durations) {
    const bin = durationBin(duration, growth);
    bins.set(bin, (bins.get(bin) ?? 0) + 1);
  }
  return bins;
}

/** The duration item of one agent-day as stored after its ADDs. */
function durationItem(bins: ReadonlyMap<number, number>): Record<string, unknown> {
  const partition = rollupPartition(tenant("org_01JDXK6M5Q8V3ZB7N4T2W9HCRA", "live"), "AGENT", "support-bot");
  const item: Record<string, unknown> = {
    ...rollupDurationsKey(partition, "2026-11-25"),
    entity: "rollup",
    day: "2026-11-25",
    ttl: 1_795_000_000,
    rollupKind: "durations",
  };
  for (const [bin, count] of bins) item[durationBinAttribute(bin)] = count;
  return item;
}

const seedOf = (shape: string, sessions: number) =>
  [...shape].reduce((sum, c) => sum * 31 + c.charCodeAt(0), sessions) >>> 0;

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.join(" | ")} |`;
}

console.log("## Duration item per agent-day (bins occupied / bytes / WCU per ADD)\n");
console.log(row(["shape", "sessions", ...GROWTHS.map((growth) => `${Math.round((growth - 1) * 100)} % bins`)]));
console.log(row(["---", "---:", ...GROWTHS.map(() => "---:")]));
for (const shape of [...REALISTIC, WORST]) {
  for (const sessions of SESSIONS_PER_DAY) {
    const durations = sampleDurations(distribution(shape), sessions, seedOf(shape, sessions));
    const cells = GROWTHS.map((growth) => {
      const bins = binsOf(durations, growth);
      const bytes = itemBytes(durationItem(bins));
      return `${bins.size} / ${bytes} B / ${Math.ceil(bytes / 1024)}`;
    });
    console.log(row([shape, sessions, ...cells]));
  }
}

console.log("\n## Largest relative error of p50 / p95 / p99 against the exact percentiles\n");
console.log(row(["samples", ...GROWTHS.map((growth) => `${Math.round((growth - 1) * 100)} % bins`)]));
console.log(row(["---", ...GROWTHS.map(() => "---:")]));
const SIZES = [1, 10, 100, 1_000, 10_000, 100_000];
const errors = GROWTHS.map(() => 0);
let samples = 0;
for (const shape of DURATION_DISTRIBUTIONS) {
  for (const [index, size] of SIZES.entries()) {
    for (let repeat = 0; repeat < (size <= 1_000 ? 20 : 3); repeat++) {
      const durations = sampleDurations(shape, size, seedOf(shape.name, size) + 7919 * repeat + index);
      samples++;
      const exact = [0.5, 0.95, 0.99].map((fraction) => exactPercentile(durations, fraction));
      GROWTHS.forEach((growth, column) => {
        const bins = binsOf(durations, growth);
        [0.5, 0.95, 0.99].forEach((fraction, at) => {
          const estimate = percentileFromBins(bins, fraction, growth) ?? Number.NaN;
          const truth = exact[at] ?? Number.NaN;
          errors[column] = Math.max(errors[column] ?? 0, Math.abs(estimate - truth) / truth);
        });
      });
    }
  }
}
console.log(
  row([
    `${samples} samples: ${DURATION_DISTRIBUTIONS.length} shapes × n = ${SIZES.join(", ")}`,
    ...errors.map((error) => `${(error * 100).toFixed(2)} %`),
  ]),
);

// A period is many days merged: the merged item-free histogram of 30 days of 1,000 sessions.
const month = mergeDurationBins(
  Array.from({ length: 30 }, (_, day) =>
    binsOf(sampleDurations(distribution(REALISTIC[day % REALISTIC.length] ?? WORST), 1_000, 50_000 + day), 1.04),
  ),
);
console.log(`\n30 days × 1,000 sessions (mixed shapes) merged at 4 %: ${month.size} bins.`);
