/**
 * Random session durations (ms) for the percentile checks: seeded, so a failure reproduces, and shaped like
 * what agents report (log-normal runs, bimodal fast/slow, long tails, ties of whole milliseconds), all within
 * 1 ms – 1 h.
 */

/** A seeded generator of uniform numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const MIN_MS = 1;
const MAX_MS = 3_600_000;

function normal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function clamp(ms: number): number {
  return Math.min(MAX_MS, Math.max(MIN_MS, ms));
}

export interface DurationDistribution {
  readonly name: string;
  readonly draw: (random: () => number) => number;
}

export const DURATION_DISTRIBUTIONS: readonly DurationDistribution[] = [
  { name: "log-uniform 1 ms – 1 h", draw: (random) => clamp(Math.exp(random() * Math.log(MAX_MS))) },
  { name: "uniform 1 ms – 1 h", draw: (random) => clamp(MIN_MS + random() * (MAX_MS - MIN_MS)) },
  { name: "log-normal, median 10 s, σ 1", draw: (random) => clamp(10_000 * Math.exp(normal(random))) },
  { name: "log-normal, median 2 s, σ 2", draw: (random) => clamp(2_000 * Math.exp(2 * normal(random))) },
  { name: "exponential, mean 30 s", draw: (random) => clamp(-30_000 * Math.log(1 - random())) },
  {
    name: "bimodal: 80 % ~150 ms, 20 % ~20 min",
    draw: (random) =>
      clamp(random() < 0.8 ? 150 * Math.exp(0.4 * normal(random)) : 1_200_000 * Math.exp(0.3 * normal(random))),
  },
  { name: "Pareto tail from 5 ms (α 0.8)", draw: (random) => clamp(5 / (1 - random()) ** (1 / 0.8)) },
  { name: "whole ms, 1 – 40 ms", draw: (random) => 1 + Math.floor(random() * 40) },
];

/** `count` durations of a distribution, from `seed`. */
export function sampleDurations(distribution: DurationDistribution, count: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => distribution.draw(random));
}

/** The exact nearest-rank percentile (the value at rank ⌈fraction × n⌉), as the stats API defines it. */
export function exactPercentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(fraction * sorted.length)) - 1] ?? Number.NaN;
}
