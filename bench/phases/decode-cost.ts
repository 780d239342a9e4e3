/**
 * Phase: the worst OTLP export request's cost (issue 30's security review). Each of the review's bodies —
 * a few KB of gzip that inflate to 5 MiB of two-byte fields (bench/fixtures/inflating-bodies.ts: records,
 * attributes or empty envelopes; traces and logs; protobuf and JSON) — read as the export routes read it:
 * decompressed within the body limit (functions/http/json-body.ts decodedBody) and decoded within its
 * signal's limits (functions/otel/otlp-request.ts decodeOtlpRequest), up to the 400. Per request: CPU time
 * and wall time (medians over the runs, after one unmeasured run) and the heap it grew by (V8's used heap
 * just after the request minus just before, a collection run first: what it allocated, garbage included).
 * CPU time is the figure to compare: on a shared machine the wall time includes waiting for a core. The
 * decompressed body itself (a Buffer, outside V8's heap) is not in the heap figure.
 *
 * In `npm run bench` (its own section), or alone, with nothing else started:
 *   node --import tsx bench/phases/decode-cost.ts     (BENCH_DECODE_RUNS, 5)
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { LIMITS } from "../../functions/domain/limits.js";
import { decodedBody } from "../../functions/http/json-body.js";
import type { SdkEvent } from "../../functions/http/sdk-event.js";
import { LOGS_SIGNAL } from "../../functions/otel/logs-signal.js";
import { decodeOtlpRequest } from "../../functions/otel/otlp-request.js";
import { TRACE_SIGNAL } from "../../functions/otel/trace-signal.js";
import {
  type Encoding,
  FILLERS,
  type Filler,
  gzippedInflatingBody,
  inflatingBody,
  type Signal,
} from "../fixtures/inflating-bodies.js";
import { median } from "../harness/stats.js";

export interface DecodeCostRow {
  readonly signal: Signal;
  readonly encoding: Encoding;
  readonly filler: Filler;
  readonly gzipBytes: number;
  readonly inflatedBytes: number;
  /** What the request got: `400: <message>` or `read`. */
  readonly outcome: string;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly heapGrowthMb: number;
}

setFlagsFromString("--expose-gc");
/** A full collection, so the heap figures are of the request alone. */
const collect = runInNewContext("gc") as () => void;

/** The export route's reading of `gzipped`: decompressed within the body limit, decoded within the limits. */
function readAsTheRouteDoes(gzipped: Buffer, signal: Signal, encoding: Encoding): string {
  const event = {
    body: gzipped.toString("base64"),
    isBase64Encoded: true,
    headers: { "content-encoding": "gzip" },
  } as unknown as SdkEvent;
  try {
    decodeOtlpRequest(
      decodedBody(event, LIMITS.eventBodyBytes),
      encoding,
      signal === "traces" ? TRACE_SIGNAL : LOGS_SIGNAL,
    );
    return "read";
  } catch (error) {
    return `400: ${(error as Error).message.slice(0, 48)}…`;
  }
}

function measure(signal: Signal, encoding: Encoding, filler: Filler, runs: number): DecodeCostRow {
  const gzipped = gzippedInflatingBody(signal, encoding, filler);
  const samples: { cpuMs: number; wallMs: number; heapBytes: number }[] = [];
  let outcome = "";
  for (let run = -1; run < runs; run++) {
    collect();
    const heapBefore = getHeapStatistics().used_heap_size;
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    outcome = readAsTheRouteDoes(gzipped, signal, encoding);
    const wallMs = performance.now() - wallBefore;
    const cpu = process.cpuUsage(cpuBefore);
    const heapBytes = getHeapStatistics().used_heap_size - heapBefore;
    if (run >= 0) samples.push({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs, heapBytes });
  }
  return {
    signal,
    encoding,
    filler,
    gzipBytes: gzipped.length,
    inflatedBytes: inflatingBody(signal, encoding, filler).length,
    outcome,
    cpuMs: median(samples.map((sample) => sample.cpuMs)),
    wallMs: median(samples.map((sample) => sample.wallMs)),
    heapGrowthMb: median(samples.map((sample) => sample.heapBytes)) / 1024 / 1024,
  };
}

/** Every body, `runs` times each. */
export function measureDecodeCost(options: {
  readonly runs: number;
  readonly log: (line: string) => void;
}): DecodeCostRow[] {
  const rows: DecodeCostRow[] = [];
  for (const signal of ["traces", "logs"] as const)
    for (const encoding of ["protobuf", "json"] as const)
      for (const filler of FILLERS) {
        const row = measure(signal, encoding, filler, options.runs);
        options.log(
          `  ${signal} ${encoding} ${filler}: ${row.cpuMs.toFixed(0)} ms CPU, ${row.wallMs.toFixed(0)} ms wall, +${row.heapGrowthMb.toFixed(0)} MB heap (${row.outcome})`,
        );
        rows.push(row);
      }
  return rows;
}

/** The phase's section of bench/results.md. */
export function decodeCostMarkdown(rows: readonly DecodeCostRow[]): string[] {
  const worst = rows.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a));
  const heaviest = rows.reduce((a, b) => (b.heapGrowthMb > a.heapGrowthMb ? b : a));
  return [
    "## 8. The worst OTLP export request (gzip bodies of 5 MiB of two-byte fields)",
    "",
    "Each body read as the export routes read it (decompressed within the 5 MiB limit, decoded within the " +
      "spans / log records, attributes and values limits, up to the 400); medians per request, after one unmeasured run.",
    "",
    "| signal | encoding | body repeats | gzip bytes | inflated bytes | answer | CPU ms | wall ms | heap growth MB |",
    "|---|---|---|---:|---:|---|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.signal} | ${row.encoding} | ${row.filler} | ${row.gzipBytes.toLocaleString("en-US")} | ${row.inflatedBytes.toLocaleString("en-US")} | ${row.outcome} | ${row.cpuMs.toFixed(0)} | ${row.wallMs.toFixed(0)} | ${row.heapGrowthMb.toFixed(0)} |`,
    ),
    "",
    `The worst: ${worst.signal} ${worst.encoding} ${worst.filler}, ${worst.cpuMs.toFixed(0)} ms of CPU; ` +
      `the most memory: ${heaviest.signal} ${heaviest.encoding} ${heaviest.filler}, +${heaviest.heapGrowthMb.toFixed(0)} MB.`,
    "",
  ];
}

if (import.meta.main) {
  const runs = Number(process.env.BENCH_DECODE_RUNS ?? 5);
  const rows = measureDecodeCost({ runs, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${decodeCostMarkdown(rows).join("\n")}\n`);
}
