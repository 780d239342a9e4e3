/** Sequential latency sampling shared by the bench scripts. */

export interface Timing {
  readonly label: string;
  readonly p50: number;
  readonly p95: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Runs `operation` `warmUp` times unmeasured (index < 0), then `samples` times timed. */
export async function measure(
  label: string,
  operation: (index: number) => Promise<void>,
  options: { readonly samples: number; readonly warmUp: number },
): Promise<Timing> {
  for (let index = 0; index < options.warmUp; index++) await operation(-1 - index);
  const timings: number[] = [];
  for (let index = 0; index < options.samples; index++) {
    const started = performance.now();
    await operation(index);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { label, p50: percentile(timings, 0.5), p95: percentile(timings, 0.95) };
}
