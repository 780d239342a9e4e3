/**
 * Keeps the service's per-request INFO log lines (functions/runtime/log.ts,
 * written through `console.info` outside Lambda) off the terminal while still building them,
 * and counts what would have been written: on Lambda each line is a
 * CloudWatch Logs ingestion. WARN/ERROR lines still reach stderr (the first
 * few) and are counted.
 */

interface Counters {
  infoLines: number;
  infoBytes: number;
  problemLines: number;
}

const counters: Counters = { infoLines: 0, infoBytes: 0, problemLines: 0 };
let installed = false;

function text(args: readonly unknown[]): string {
  return args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" ");
}

export function installLogSink(): void {
  if (installed) return;
  installed = true;
  const sink = (...args: unknown[]) => {
    counters.infoLines += 1;
    counters.infoBytes += Buffer.byteLength(text(args)) + 1;
  };
  console.info = sink;
  console.debug = sink;
  for (const method of ["warn", "error"] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      counters.problemLines += 1;
      if (counters.problemLines <= 10) original(...args);
    };
  }
}

export function logCounters(): Readonly<Counters> {
  return { ...counters };
}
