/**
 * Phases 3 and 4: each handler module invoked in this process with an API
 * Gateway v2 event (no HTTP, no adapter), sequentially on a warm "container"
 * (this process: the key cache and the rate-limit lease are warm after the
 * warm-up), then a second pass with the DynamoDB meter on, attributing every
 * command, round trip and consumed unit to the invocation that caused it.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { billedUnits, type CommandRecord, type DynamoMeter } from "../harness/dynamo-meter.js";
import { gatewayEvent, type LambdaHttpHandler, lambdaContext } from "../harness/gateway-event.js";
import { logCounters } from "../harness/log-sink.js";
import type { Operation } from "../harness/operations.js";
import { type LatencySummary, mean, mode, summarize } from "../harness/stats.js";

/** Memory at which a Lambda function gets one full vCPU. */
export const FULL_VCPU_MB = 1769;

/** Lambda memory sizes the bench models (MB), doubling steps so that run-to-run noise cannot flip the choice between neighbours; 1,769 MB is one full vCPU. */
export const MEMORY_CANDIDATES_MB = [128, 256, 512, 1024, 1769] as const;

export interface DynamoWork {
  readonly invocations: number;
  /** HTTP round trips to DynamoDB per invocation. */
  readonly roundTrips: { readonly mean: number; readonly mode: number; readonly max: number };
  /** Mean commands per invocation, by operation and purpose (`TransactWriteItems`, `UpdateItem (rateLimit)`, …). */
  readonly commandsPerInvocation: Readonly<Record<string, number>>;
  /** Units AWS would bill per invocation (transactions: from the items' images; the rest: as DynamoDB reported). */
  readonly writeUnits: { readonly mean: number; readonly mode: number };
  readonly readUnits: { readonly mean: number; readonly mode: number };
  /** Units as DynamoDB Local reported them, mean per invocation. */
  readonly reportedWriteUnitsMean: number;
  readonly reportedReadUnitsMean: number;
  /** Items written per invocation (each item of a transaction or batch counts). */
  readonly itemWritesMean: number;
  readonly failedCommands: number;
  /** The most frequent sequence of commands of an invocation (e.g. `PutItem (conditional)`) and its share. */
  readonly typicalCommands: { readonly signature: string; readonly share: number };
}

export interface HandlerResult {
  readonly routeId: string;
  readonly label: string;
  readonly eventsPerRequest: number;
  /** Wall time of `await handler(event, context)`. */
  readonly latency: LatencySummary;
  /** Mean of the durations rounded up to whole ms (Lambda's billing granularity). */
  readonly billedMsMean: number;
  /** Mean CPU time (user + system) of this process per invocation. */
  readonly cpuMsMean: number;
  /**
   * Sensitivity: billed ms if the CPU part ran at the function's share of a
   * vCPU (memory ÷ 1,769 MB) and the waiting on DynamoDB stayed as measured.
   */
  readonly cpuScaledBilledMsMean: number;
  /**
   * The same model at each candidate memory size (MB → value): mean billed ms
   * and mean duration, the CPU part scaled to min(1, MB ÷ 1,769) of a vCPU.
   */
  readonly atMemory: Readonly<Record<number, { readonly billedMsMean: number; readonly msMean: number }>>;
  /** Bytes of log lines the handler wrote per invocation (the request log line). */
  readonly logBytesMean: number;
  readonly failures: number;
  readonly work: DynamoWork;
}

/** One invocation's commands in order, e.g. `GetItem + PutItem (conditional)`. */
export function commandSignature(records: readonly CommandRecord[]): string {
  if (records.length === 0) return "none";
  return records
    .map(
      (record) =>
        `${record.command}${record.conditional ? " (conditional)" : ""}${record.purpose === "route" ? "" : ` [${record.purpose}]`}`,
    )
    .join(" + ");
}

export function summarizeWork(perInvocation: readonly CommandRecord[][]): DynamoWork {
  const roundTrips = perInvocation.map((records) => records.reduce((sum, record) => sum + record.attempts, 0));
  const counts: Record<string, number> = {};
  for (const records of perInvocation) {
    for (const record of records) {
      const name = record.purpose === "route" ? record.command : `${record.command} (${record.purpose})`;
      counts[name] = (counts[name] ?? 0) + 1;
    }
  }
  const commands = Object.fromEntries(
    Object.entries(counts).map(([name, count]) => [name, count / perInvocation.length]),
  );
  const units = (kind: "read" | "write", billed: boolean) =>
    perInvocation.map((records) =>
      records
        .filter((record) => record.kind === kind)
        .reduce(
          (sum, record) => sum + (billed ? billedUnits(record) : (record.tableUnits ?? 0) + (record.indexUnits ?? 0)),
          0,
        ),
    );
  const writes = units("write", true);
  const reads = units("read", true);
  return {
    invocations: perInvocation.length,
    roundTrips: { mean: mean(roundTrips), mode: mode(roundTrips), max: Math.max(...roundTrips) },
    commandsPerInvocation: commands,
    writeUnits: { mean: mean(writes), mode: mode(writes) },
    readUnits: { mean: mean(reads), mode: mode(reads) },
    reportedWriteUnitsMean: mean(units("write", false)),
    reportedReadUnitsMean: mean(units("read", false)),
    itemWritesMean: mean(
      perInvocation.map((records) =>
        records.filter((record) => record.kind === "write").reduce((sum, record) => sum + record.items, 0),
      ),
    ),
    failedCommands: perInvocation.flat().filter((record) => !record.succeeded).length,
    typicalCommands: typical(perInvocation.map(commandSignature)),
  };
}

function typical(signatures: readonly string[]): { signature: string; share: number } {
  const counts = new Map<string, number>();
  for (const signature of signatures) counts.set(signature, (counts.get(signature) ?? 0) + 1);
  let best = "none";
  let bestCount = 0;
  for (const [signature, count] of counts) {
    if (count > bestCount) {
      best = signature;
      bestCount = count;
    }
  }
  return { signature: best, share: signatures.length === 0 ? 0 : bestCount / signatures.length };
}

export type HandlerTiming = Omit<HandlerResult, "work" | "failures">;

/** One handler module, loaded once, invoked in-process. */
export interface InProcessHandler {
  /** Warm-up, then the timed sequential invocations. */
  time(): Promise<HandlerTiming>;
  /** The metered pass: DynamoDB commands, round trips and units per invocation. */
  meter(): Promise<DynamoWork>;
  /** Invocations that did not answer as expected (all passes). */
  failures(): number;
  /**
   * The first-event probe: for each session (one this process has not seen), two invocations with the
   * meter on; the DynamoDB work of the first and of the second.
   */
  firstAndLater(bodies: readonly string[]): Promise<{ first: DynamoWork; later: DynamoWork }>;
}

export async function inProcessHandler(
  operation: Operation,
  options: {
    readonly keys: Readonly<Record<Operation["apiKey"], string>>;
    readonly meter: DynamoMeter;
    readonly memoryMb: number;
    readonly warmUp: number;
    readonly samples: number;
    readonly meteredSamples: number;
  },
): Promise<InProcessHandler> {
  const cpuFactor = FULL_VCPU_MB / options.memoryMb;
  const module = (await import(pathToFileURL(resolve(REPOSITORY_ROOT, operation.route.entry)).href)) as {
    handler: LambdaHttpHandler;
  };
  const headers = { authorization: `Bearer ${options.keys[operation.apiKey]}`, "content-type": "application/json" };
  const next = operation.lane(0);
  let failures = 0;
  const invoke = async (request = next()) => {
    const event = gatewayEvent(operation.route, { ...request, headers });
    const context = lambdaContext(operation.route.id, options.memoryMb);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = await module.handler(event, context);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const body = typeof result.body === "string" ? result.body : "";
    if (result.statusCode !== operation.expectStatus) {
      failures += 1;
      if (failures <= 3)
        process.stderr.write(`  ${operation.label} answered ${result.statusCode}: ${body.slice(0, 300)}\n`);
    }
    if (operation.inspect !== undefined) failures += operation.inspect(result.statusCode ?? 0, body);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  // A batch does 100 events' work: fewer samples keep the run bounded.
  const batch = operation.eventsPerRequest > 1;

  return {
    async time() {
      for (let index = 0; index < options.warmUp; index++) await invoke();
      const logsBefore = logCounters();
      const timings: { ms: number; cpuMs: number }[] = [];
      const samples = batch ? Math.max(20, Math.round(options.samples / 5)) : options.samples;
      for (let index = 0; index < samples; index++) timings.push(await invoke());
      const logsAfter = logCounters();
      return {
        routeId: operation.routeId,
        label: operation.label,
        eventsPerRequest: operation.eventsPerRequest,
        latency: summarize(timings.map((timing) => timing.ms)),
        billedMsMean: mean(timings.map((timing) => Math.ceil(timing.ms))),
        cpuMsMean: mean(timings.map((timing) => timing.cpuMs)),
        cpuScaledBilledMsMean: mean(timings.map((timing) => Math.ceil(timing.ms + timing.cpuMs * (cpuFactor - 1)))),
        atMemory: Object.fromEntries(
          MEMORY_CANDIDATES_MB.map((memoryMb) => {
            const slowdown = Math.max(1, FULL_VCPU_MB / memoryMb) - 1;
            const scaled = timings.map((timing) => timing.ms + timing.cpuMs * slowdown);
            return [memoryMb, { billedMsMean: mean(scaled.map((ms) => Math.ceil(ms))), msMean: mean(scaled) }];
          }),
        ),
        logBytesMean: (logsAfter.infoBytes - logsBefore.infoBytes) / samples,
      };
    },
    async meter() {
      options.meter.start({ capacity: true });
      const perInvocation: CommandRecord[][] = [];
      const metered = batch ? Math.max(5, Math.round(options.meteredSamples / 5)) : options.meteredSamples;
      try {
        for (let index = 0; index < metered; index++) {
          options.meter.drain();
          await invoke();
          perInvocation.push(options.meter.drain());
        }
      } finally {
        options.meter.stop();
      }
      return summarizeWork(perInvocation);
    },
    failures: () => failures,
    async firstAndLater(bodies) {
      const first: CommandRecord[][] = [];
      const later: CommandRecord[][] = [];
      const path = next().path;
      options.meter.start({ capacity: true });
      try {
        for (const body of bodies) {
          options.meter.drain();
          await invoke({ path, body });
          first.push(options.meter.drain());
          await invoke({ path, body });
          later.push(options.meter.drain());
        }
      } finally {
        options.meter.stop();
      }
      return { first: summarizeWork(first), later: summarizeWork(later) };
    },
  };
}
