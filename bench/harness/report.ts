/** bench/results.json and bench/results.md from one run's measurements. */

import type { CountingResult } from "../phases/counting.js";
import { type DecodeCostRow, decodeCostMarkdown } from "../phases/decode-cost.js";
import type { EndpointResult, MemoryRun } from "../phases/endpoints.js";
import type { FloorResult } from "../phases/floor.js";
import type { DynamoWork, HandlerResult } from "../phases/handlers.js";
import { type MonitorCostRow, monitorCostMarkdown } from "../phases/monitor-cost.js";
import { type PricingCallRow, type PricingPathRow, pricingMarkdown } from "../phases/pricing-cost.js";
import type { CostBreakdown, MemoryOption, PRICES, UnitWork } from "./cost-model.js";
import type { BundleResult, BundleSettings } from "./packaging.js";

export interface CostLine {
  readonly unit: string;
  /**
   * Which work of the unit: the request (API Gateway, the route's Lambda, its DynamoDB), the stream consumer's
   * counting, both, or the export's change marking (the stream's second reader).
   */
  readonly part: "request path" | "counting" | "total" | "export marking";
  readonly description: string;
  readonly work: UnitWork;
  readonly cost: CostBreakdown;
  readonly target: number | undefined;
  /** Billed Lambda ms per unit at which the target would be reached. */
  readonly lambdaMsBudget: number | undefined;
  /** Sensitivity: the same with CPU time scaled to the function's vCPU share. */
  readonly cpuScaled: { readonly work: UnitWork; readonly cost: CostBreakdown };
  /** Not in the brief's price list: CloudWatch Logs ingestion of the request log lines. */
  readonly logIngestionPerMillion: number;
}

/** Per million events, what the per-event cost lines leave out, one row each (at an assumed session length). */
export interface BeyondCosts {
  readonly eventsPerSession: number;
  readonly rows: readonly { readonly name: string; readonly basis: string; readonly perMillion: number }[];
}

export interface TargetLine {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  /** undefined: no threshold given, reported only. */
  readonly met: boolean | undefined;
  /** Why it is missed and what it would take (shown when missed). */
  readonly note?: string;
}

export interface BenchSettings {
  readonly concurrency: number;
  readonly durationSeconds: number;
  readonly sequentialSamples: number;
  readonly batchSequentialSamples: number;
  readonly batchRounds: number;
  readonly handlerSamples: number;
  readonly meteredSamples: number;
  readonly floorSamples: number;
  readonly floorConcurrentOperations: number;
  readonly seedSessions: number;
  readonly seedEventsPerSession: number;
  readonly coldRuns: number;
  readonly decodeRuns: number;
  readonly pricingCalls: number;
  readonly monitorRounds: number;
  readonly rssSeconds: number;
  readonly streamPollMs: number;
  readonly warmUp: number;
  readonly floorWarmUp: number;
}

export interface BenchResults {
  readonly meta: {
    readonly startedAt: string;
    readonly finishedAt: string;
    readonly runtimeSeconds: number;
    readonly node: string;
    readonly platform: string;
    readonly cpus: number;
    readonly cpuModel: string;
    readonly totalMemoryMb: number;
    readonly dynamoDbLocal: string;
    readonly settings: BenchSettings;
    readonly rssSecondsSource: string;
    /** 1-minute load average of the machine (os.loadavg) when the run started and ended: other work on it. */
    readonly loadAverage: { readonly atStart: number; readonly atEnd: number };
  };
  readonly floor: FloorResult;
  readonly counting: CountingResult;
  readonly firstEvent: { readonly first: DynamoWork; readonly later: DynamoWork };
  readonly handlers: readonly HandlerResult[];
  readonly endpoints: readonly EndpointResult[];
  readonly memory: MemoryRun;
  readonly packaging: {
    readonly settings: BundleSettings;
    readonly esbuildVersion: string;
    readonly bundles: readonly BundleResult[];
  };
  /** Section 8: the worst OTLP export requests (bench/phases/decode-cost.ts). */
  readonly decodeCost: readonly DecodeCostRow[];
  /** Section 9: pricing at ingest (bench/phases/pricing-cost.ts). */
  readonly pricing: { readonly calls: readonly PricingCallRow[]; readonly path: readonly PricingPathRow[] };
  /** Section 10: one monitor's evaluation (bench/phases/monitor-cost.ts). */
  readonly monitors?: { readonly rows: readonly MonitorCostRow[]; readonly fixed: string };
  readonly cost: {
    readonly prices: typeof PRICES;
    readonly memoryMb: number;
    readonly cloudWatchLogsPerGb: number;
    readonly lines: readonly CostLine[];
    readonly beyond: BeyondCosts;
  };
  readonly memorySizing: {
    readonly maxSlowdown: number;
    readonly options: readonly MemoryOption[];
    readonly chosenMb: number | undefined;
    readonly configuredMb: number;
  };
  readonly ratios: Readonly<Record<string, number>>;
  readonly errors: {
    readonly endpointErrors: number;
    readonly handlerFailures: number;
    readonly serverProblemLogLines: number;
    readonly benchProcessProblemLogLines: number;
    readonly streamPollErrors: number;
    readonly countingPartialFailures: number;
  };
  readonly targets: readonly TargetLine[];
  readonly notes: readonly string[];
}

const n = (value: number | undefined, digits = 2): string =>
  value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits);
const int = (value: number): string => Math.round(value).toLocaleString("en-US");
const usd = (value: number, digits = 3): string => `$${value.toFixed(digits)}`;
const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const verdict = (met: boolean | undefined): string =>
  met === undefined ? "reported (no threshold)" : met ? "**met**" : "**missed**";

function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly ("l" | "r")[],
): string {
  const separator = header.map((_, index) => ((align?.[index] ?? (index === 0 ? "l" : "r")) === "r" ? "---:" : "---"));
  return [header, separator, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

export function renderMarkdown(results: BenchResults): string {
  const { meta, floor, handlers, endpoints, memory, packaging, cost } = results;
  const out: string[] = [];
  const settings = meta.settings;
  out.push("# Agent Tracking Service — bench results", "");
  out.push(
    `Produced by \`npm run bench\` (bench/run.ts) on ${meta.finishedAt.slice(0, 10)}: runtime **${n(meta.runtimeSeconds, 1)} s**, ` +
      `${meta.cpus} × ${meta.cpuModel}, ${int(meta.totalMemoryMb)} MB RAM, Node ${meta.node} (${meta.platform}), ` +
      `${meta.dynamoDbLocal} in memory, local S3 (s3rver). Everything ran on this one machine: DynamoDB Local (Java), ` +
      "the local server (a child process), the load generator and the in-process handlers share its cores, so absolute " +
      "numbers are this machine's; the ratios are what carries over.",
    "",
  );
  out.push(
    `Machine load (1-minute load average, ${meta.cpus} cores): ${n(meta.loadAverage.atStart, 1)} at the start, ${n(meta.loadAverage.atEnd, 1)} at the end. ` +
      `Settings: ${Object.entries(settings)
        .map(([name, value]) => `${name} ${value}`)
        .join(", ")}. Memory run: ${meta.rssSecondsSource}.`,
    "",
  );

  out.push("## Targets", "");
  out.push(
    table(
      ["target", "threshold", "measured", "verdict"],
      results.targets.map((line) => [line.name, line.target, line.measured, verdict(line.met)]),
      ["l", "l", "l", "l"],
    ),
    "",
  );
  const missed = results.targets.filter((line) => line.met === false);
  if (missed.length > 0) {
    out.push("How the misses come about, and what it would take (figures from this run):", "");
    for (const line of missed) out.push(`- **${line.name}.** ${line.note ?? "(no analysis recorded)"}`);
    out.push("");
  }

  out.push("## Ratios (same run)", "");
  const ratioRows = Object.entries(results.ratios).map(([name, value]) => [name, n(value, 2)]);
  out.push(table(["ratio", "value"], ratioRows), "");

  out.push("## 1. Floor: raw DynamoDB calls from Node (service's document client)", "");
  out.push(
    `Item: the event item exactly as POST /api/sdk/events stores it (built by the service's \`eventItem\`), ≈ ${floor.eventItemBytes} bytes; every write puts a fresh item. ` +
      `Sequential: ${settings.floorSamples} calls after ${settings.floorWarmUp} warm-up, each run right before the sequential runs of the endpoint it is compared with (the conditional PutItem and the old transaction before POST /api/sdk/events', the BatchWriteItems before the batch route's, GetItem before GET /api/sdk/sessions/:id's); concurrent: ${int(settings.floorConcurrentOperations)} calls, ${settings.concurrency} in flight ` +
      "(a write of n items runs 1/n as often, yet at least 10 times sequentially and twice per slot in flight). The conditional PutItem is POST /api/sdk/events' write; the four BatchWriteItems of 25 in parallel are " +
      "POST /api/sdk/events/batch's write of 100 events (event-batch-store.ts sends them with Promise.all); the transaction is the single-event write before issue 14, for the before/after. " +
      "Units: as DynamoDB Local reports them, for the transaction what AWS bills (2 WCU per item per KB, modelled from the item images as in section 4).",
    "",
  );
  out.push(
    table(
      [
        "operation",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "ops/s sequential",
        `p50 ms @${settings.concurrency}`,
        `p95 ms @${settings.concurrency}`,
        `p99 ms @${settings.concurrency}`,
        `ops/s @${settings.concurrency}`,
        `items/s @${settings.concurrency}`,
        "units",
      ],
      floor.operations.map((operation) => [
        operation.label,
        n(operation.sequential.latency.p50),
        n(operation.sequential.latency.p95),
        n(operation.sequential.latency.p99),
        int(operation.sequential.operationsPerSecond),
        n(operation.concurrent.latency.p50),
        n(operation.concurrent.latency.p95),
        n(operation.concurrent.latency.p99),
        int(operation.concurrent.operationsPerSecond),
        int(operation.concurrent.operationsPerSecond * operation.itemsPerOperation),
        `${n(operation.reportedUnits, 1)} ${operation.unitKind}`,
      ]),
    ),
    "",
  );

  out.push("## 2. Endpoints through the local server (HTTP → local/http-adapter.ts → handler)", "");
  out.push(
    `autocannon from the bench process against the server child process. Sequential: 1 connection, ${settings.sequentialSamples} requests ` +
      `(${settings.batchSequentialSamples} for the batch) after ${settings.warmUp} warm-up. Under load: ${settings.concurrency} connections for ` +
      `${settings.durationSeconds} s (batch: ${settings.batchRounds} requests per connection, all answered; PATCH: until the sessions created by the POST runs are used up, one completion per session). ` +
      "Writers get one session per connection. Reads run against a seeded organisation " +
      `(${settings.seedSessions} sessions × ${settings.seedEventsPerSession} events, through the store layer).`,
    "",
  );
  out.push(
    table(
      ["endpoint", "p50 ms", "p95 ms", "p99 ms", "req/s (1 conn)", "errors"],
      endpoints.map((endpoint) => [
        endpoint.label,
        n(endpoint.sequential.latency.p50),
        n(endpoint.sequential.latency.p95),
        n(endpoint.sequential.latency.p99),
        int(endpoint.sequential.requestsPerSecond),
        String(endpoint.sequential.errorCount + endpoint.warmUpErrors),
      ]),
    ),
    "",
  );
  out.push(
    table(
      ["endpoint", "connections", "requests", "req/s", "events/s", "p50 ms", "p95 ms", "p99 ms", "errors"],
      endpoints.map((endpoint) => [
        endpoint.label,
        String(endpoint.concurrent.connections),
        int(endpoint.concurrent.responses),
        int(endpoint.concurrent.requestsPerSecond),
        endpoint.eventsPerSecond === undefined ? "–" : int(endpoint.eventsPerSecond),
        n(endpoint.concurrent.latency.p50),
        n(endpoint.concurrent.latency.p95),
        n(endpoint.concurrent.latency.p99),
        String(endpoint.concurrent.errorCount),
      ]),
    ),
    "",
  );

  const putFloor = floor.operations[0];
  const itemWrites = endpoints
    .filter((endpoint) => endpoint.eventsPerSecond !== undefined)
    .map((endpoint) => {
      const handler = handlers.find((candidate) => candidate.routeId === endpoint.routeId);
      const perRequest = handler?.work.itemWritesMean ?? Number.NaN;
      return `${endpoint.label} ${int(endpoint.concurrent.requestsPerSecond * perRequest)}/s (${n(perRequest, 2)} items per request)`;
    });
  if (putFloor !== undefined) {
    out.push(
      `DynamoDB item writes per second under load (requests/s × items written per request, section 4): ${itemWrites.join(", ")}; ` +
        `raw conditional PutItem at ${settings.concurrency} in flight: ${int(putFloor.concurrent.operationsPerSecond)}/s. ` +
        "On this machine the event routes under load are bound by what DynamoDB Local can write on the shared cores.",
      "",
    );
  }

  out.push("## 3. Handler cost without HTTP (handler module invoked in-process with an API Gateway v2 event)", "");
  out.push(
    `${settings.handlerSamples} sequential invocations per handler (${Math.max(20, Math.round(settings.handlerSamples / 5))} for the batch) after ${settings.warmUp} warm-up, on a warm "container" ` +
      "(key cache and rate-limit lease warm), each run right before the same endpoint's sequential HTTP run. " +
      "Overhead = endpoint sequential p50 − in-process p50: the HTTP hop, autocannon and the adapter (the in-process run " +
      "is in the bench process, the HTTP one in the server process: small differences are within noise). " +
      "CPU = user + system time of the bench process per invocation.",
    "",
  );
  out.push(
    table(
      [
        "handler",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "endpoint p50 ms",
        "overhead p50 ms",
        "CPU ms",
        "billed ms (mean of ⌈ms⌉)",
        "failures",
      ],
      handlers.map((handler) => {
        const endpoint = endpoints.find((candidate) => candidate.routeId === handler.routeId);
        const endpointP50 = endpoint?.sequential.latency.p50;
        return [
          handler.label,
          n(handler.latency.p50),
          n(handler.latency.p95),
          n(handler.latency.p99),
          n(endpointP50),
          n(endpointP50 === undefined ? undefined : endpointP50 - handler.latency.p50),
          n(handler.cpuMsMean),
          n(handler.billedMsMean),
          String(handler.failures),
        ];
      }),
    ),
    "",
  );

  out.push("## 4. DynamoDB work per request", "");
  out.push(
    `Metered pass: ${settings.meteredSamples} in-process invocations per handler (${Math.max(5, Math.round(settings.meteredSamples / 5))} for the batch) with client middlewares on ` +
      "`documentClient.middlewareStack` counting commands and HTTP attempts (round trips) and setting `ReturnConsumedCapacity` on every " +
      "data-plane command (`INDEXES`: the `TOTAL` figure plus the table/index split), summed per request. " +
      "WRU/RRU are what AWS would bill: as DynamoDB Local reports them, except for `TransactWriteItems`, whose `ConsumedCapacity` Local " +
      "does not report usably (check below: 1, 2 or 3 small puts in a transaction all report the same). Each transaction is costed " +
      "from its items' images instead, read with a consistent BatchGetItem before and after it (outside the timed pass, not counted): " +
      "2 WCU per started KB of each item (the larger image for updates) + 1 WCU per keys-only index entry written or removed " +
      "(2 when its key moves), at the standard rate. Means include the amortised per-key overheads as they occurred " +
      "(rate-limit lease: one UpdateItem per 100 requests per container; key lookup: one GetItem per 10 s per container; " +
      "lastUsedAt: one conditional UpdateItem per minute per key).",
    "",
  );
  out.push(
    table(
      ["write (capacity model check)", "Local table", "Local index", "model table", "model index", "agree"],
      floor.capacityChecks.map((check) => [
        check.write,
        n(check.localTable, 1),
        n(check.localIndexes, 1),
        n(check.modelTable, 1),
        n(check.modelIndexes, 1),
        check.agrees ? "yes" : "**no**",
      ]),
    ),
    "",
  );
  out.push(
    table(
      [
        "handler",
        "round trips mode / mean / max",
        "commands per request (mean)",
        "WRU mode / mean",
        "RRU mode / mean",
        "per event WRU",
        "Local-reported WRU / RRU",
      ],
      handlers.map((handler) => [
        handler.label,
        `${n(handler.work.roundTrips.mode, 0)} / ${n(handler.work.roundTrips.mean, 3)} / ${n(handler.work.roundTrips.max, 0)}`,
        Object.entries(handler.work.commandsPerInvocation)
          .sort((a, b) => b[1] - a[1])
          .map(([name, count]) => `${name} ×${n(count, count < 1 ? 2 : 2).replace(/\.00$/, "")}`)
          .join(", "),
        `${n(handler.work.writeUnits.mode, 1)} / ${n(handler.work.writeUnits.mean, 2)}`,
        `${n(handler.work.readUnits.mode, 1)} / ${n(handler.work.readUnits.mean, 2)}`,
        handler.eventsPerRequest > 0 ? n(handler.work.writeUnits.mean / handler.eventsPerRequest, 3) : "–",
        `${n(handler.work.reportedWriteUnitsMean, 2)} / ${n(handler.work.reportedReadUnitsMean, 2)}`,
      ]),
    ),
    "",
  );
  const single = handlers.find((handler) => handler.routeId === "CreateEvent");
  const batch = handlers.find((handler) => handler.routeId === "CreateEventBatch");
  if (single !== undefined && batch !== undefined) {
    out.push(
      `- Single event on a warm container: **${n(single.work.roundTrips.mode, 0)} round trip** per event (mean ${n(single.work.roundTrips.mean, 3)} with the amortised lease/key writes), ` +
        `**${n(single.work.writeUnits.mode, 1)} WCU** per event (mean ${n(single.work.writeUnits.mean, 3)}) for an event item of ≈ ${floor.eventItemBytes} bytes (< 1 KB).`,
      `- Batched (100 events to one session, no client ids: the plain lane): ${n(batch.work.roundTrips.mode, 0)} round trips per request ("${batch.work.typicalCommands.signature}"), ` +
        `**${n(batch.work.writeUnits.mean / batch.eventsPerRequest, 3)} WCU per event**. (Events with the client's own id, as the SDK sends them, are one conditional PutItem each instead: the same WCU, no read; section 1 times both lanes' raw calls.)`,
      `- First event of a session in a container (${results.firstEvent.first.invocations} sessions this process had not seen): ` +
        `${n(results.firstEvent.first.roundTrips.mode, 0)} round trips, "${results.firstEvent.first.typicalCommands.signature}" (${n(results.firstEvent.first.readUnits.mean, 2)} RRU, ${n(results.firstEvent.first.writeUnits.mean, 2)} WRU mean); ` +
        `the second event of each: ${n(results.firstEvent.later.roundTrips.mode, 0)}, "${results.firstEvent.later.typicalCommands.signature}".`,
      "",
    );
  }

  out.push("## 4b. Counting: the stream consumer under the load phase", "");
  const counting = results.counting;
  out.push(
    `The poller of local/stream-poller.ts with the service's consumer (functions/stream/stream-consumer.ts), every ${counting.intervalMs} ms (BENCH_STREAM_WINDOW_MS; by default the deployed batching window, lib/stream-batching.ts: each poll hands a shard's records gathered since the last one to the consumer as one batch), ` +
      `up to ${counting.batchSize} records per invocation, from the first request of the endpoints' runs under load (section 2) to their last, then drained (not during the memory run): ${n(counting.seconds, 1)} s, of which ${n(counting.drainSeconds, 1)} s draining after the load stopped. ` +
      "Records filtered as the stack's event source mapping filters them (INSERT or MODIFY of a session partition; a batch with none left is no invocation): " +
      `${int(counting.invocations)} invocations, records per invocation p50 ${n(counting.recordsPerInvocation.p50, 0)} (max ${n(counting.recordsPerInvocation.max, 0)}), ${int(counting.filteredOut)} records filtered out, ` +
      `${counting.partialFailures} partial failures. DynamoDB work metered per invocation (round trips, units as DynamoDB Local reports them: the sessions' BatchGetItem, one conditional UpdateItem per session and per rollup item; ` +
      "any transaction costed by the capacity model from the items' images read after the run). A session's own commands are its class's; the batch's shared commands (the BatchGetItem, the rollup items summed across its sessions) are shared by the classes in proportion to their records. " +
      `Over the run: ${int(counting.writes.sessionCounters.commands)} session counter writes (${n(counting.writes.sessionCounters.units / counting.writes.sessionCounters.commands, 2)} WCU each), ` +
      `${int(counting.writes.rollupItems.commands)} rollup item writes (${n(counting.writes.rollupItems.units / counting.writes.rollupItems.commands, 2)} WCU each), ` +
      `${int(counting.writes.sessionReads.commands)} BatchGetItems of ${int(counting.writes.sessionReads.keys)} session keys (${n(counting.writes.sessionReads.units / counting.writes.sessionReads.keys, 2)} RRU per key); ${n(counting.msPerRecord, 3)} ms per record. ` +
      "Lag = the time the handler returned (counts committed) − the event's createdAt (set just before its PutItem). Classes: the sessions written by single events, by batches, and the rest " +
      "(the sessions created and completed by the session endpoints: starts and ends, no events). Duration and invocations are shared between classes by their records; the consumer's own session updates " +
      "pass the filter and come back as records (they count nothing).",
    "",
  );
  out.push(
    table(
      [
        "class",
        "events",
        "records",
        "invocations (share)",
        "events per session per batch",
        "transactions",
        "items per transaction",
        "commands",
        "WRU per event",
        "RRU per event",
        "Lambda ms per event",
        "lag p50 ms",
        "lag p95 ms",
        "lag p99 ms",
        "lag max ms",
      ],
      counting.classes.map((line) => [
        line.trafficClass,
        int(line.events),
        int(line.records),
        n(line.invocations, 1),
        n(line.eventsPerSessionPerBatch, 1),
        int(line.transactions),
        n(line.itemsPerTransaction, 1),
        Object.entries(line.commands)
          .map(([name, count]) => `${name} ×${int(count)}`)
          .join(", "),
        n(line.perEvent.writeRequestUnits, 3),
        n(line.perEvent.readRequestUnits, 3),
        n(line.perEvent.lambdaBilledMs, 3),
        n(line.lag.p50, 0),
        n(line.lag.p95, 0),
        n(line.lag.p99, 0),
        n(line.lag.max, 0),
      ]),
    ),
    "",
  );

  out.push("## 5. Lambda packaging", "");
  out.push(
    `Each function bundled as the CDK stack bundles it (esbuild ${packaging.esbuildVersion}: ESM, minify, target ${packaging.settings.target}, ` +
      "platform node, mainFields module,main, the createRequire banner, " +
      `${Object.entries(packaging.settings.alias)
        .map(([from, to]) => `alias ${from} → ${to}`)
        .join(", ")}, external (runtime-provided, imported on first use) ${packaging.settings.external.join(", ")}; ` +
      "all read from lib/constructs/api-function.ts; the baseline is built the same way). " +
      `Cold init: median of ${settings.coldRuns} fresh \`node\` processes importing the bundle (rounds across all bundles, after one unmeasured round) with the function's environment ` +
      "(TABLE_NAME, AWS_REGION, AWS_LAMBDA_FUNCTION_NAME, and per route PAYLOAD_BUCKET / DELETION_QUEUE_URL / JWT settings). " +
      "“import” = `await import(bundle)` inside the process; “ready” = process time origin → handler ready (includes Node's own start-up).",
    "",
  );
  const bare = packaging.bundles.find((bundle) => bundle.baseline);
  out.push(
    table(
      [
        "function",
        "bytes",
        "KiB",
        "÷ 300 KiB",
        "≤ 300 KiB",
        "gzip KiB",
        "import ms",
        "÷ bare",
        "ready ms",
        "÷ bare",
        "spawn→exit ms",
      ],
      packaging.bundles.map((bundle) => [
        bundle.baseline ? `${bundle.id} (baseline)` : bundle.id,
        int(bundle.bytes),
        kib(bundle.bytes),
        n(bundle.bytes / (300 * 1024), 2),
        bundle.baseline ? "–" : bundle.bytes <= 300 * 1024 ? "met" : "missed",
        kib(bundle.gzipBytes),
        n(bundle.coldInit.importMs, 1),
        bare === undefined ? "–" : n(bundle.coldInit.importMs / bare.coldInit.importMs, 2),
        n(bundle.coldInit.processToReadyMs, 1),
        bare === undefined ? "–" : n(bundle.coldInit.processToReadyMs / bare.coldInit.processToReadyMs, 2),
        n(bundle.coldInit.wallMs, 1),
      ]),
    ),
    "",
  );

  out.push("## 6. Cost model (AWS, us-east-1)", "");
  out.push(
    `Prices: ${cost.prices.source}. API Gateway HTTP API $${cost.prices.apiGatewayHttpPerMillionRequests.toFixed(2)} per million requests (first 300 M/month; ` +
      `a 100-event batch is one 512 KB-metered request); Lambda arm64 $${cost.prices.lambdaArm64PerGbSecond} per GB-s and ` +
      `$${cost.prices.lambdaPerMillionRequests.toFixed(2)} per million requests at ${cost.memoryMb} MB; DynamoDB on-demand ` +
      `$${cost.prices.dynamoDbPerMillionWriteRequestUnits} per million WRU and $${cost.prices.dynamoDbPerMillionReadRequestUnits} per million RRU; ` +
      `S3 PUT $${cost.prices.s3PutPerThousandRequests} per 1,000 only for offloaded payloads (0 in the typical event). ` +
      "Request path: Lambda duration = the in-process handler durations of section 3, each rounded up to 1 ms; WRU/RRU = the billed means of section 4. " +
      "Counting: the stream consumer's invocations, billed ms and WRU/RRU of section 4b divided by the events it counted of that class (its stream reads are free: see the price source); " +
      "the consumer runs at the same memory size. Total = request path + counting, judged against the target.",
    "",
  );
  out.push(
    table(
      [
        "per million",
        "API Gateway",
        "Lambda requests",
        "Lambda duration",
        "DynamoDB writes",
        "DynamoDB reads",
        "S3",
        "total",
        "target",
        "verdict",
        "Lambda ms budget per unit",
      ],
      cost.lines.map((line) => [
        `${line.unit} — ${line.part} (${line.description})`,
        usd(line.cost.apiGateway),
        usd(line.cost.lambdaRequests),
        usd(line.cost.lambdaDuration),
        usd(line.cost.dynamoDbWrites),
        usd(line.cost.dynamoDbReads),
        usd(line.cost.s3Puts),
        `**${usd(line.cost.total)}**`,
        line.target === undefined ? "–" : usd(line.target, 2),
        line.target === undefined ? "–" : verdict(line.cost.total <= line.target),
        line.lambdaMsBudget === undefined ? "–" : n(line.lambdaMsBudget, 1),
      ]),
    ),
    "",
  );
  const { beyond } = cost;
  out.push(
    `Per million events, beyond the request path and counting (an assumed ${beyond.eventsPerSession} events per session; not in the targets, which are per event):`,
    "",
    table(
      ["per million events", "cost", "basis"],
      beyond.rows.map((row) => [row.name, usd(row.perMillion), row.basis]),
      ["l", "r", "l"],
    ),
    "",
  );
  out.push(
    table(
      ["inputs per unit", "API requests", "Lambda invocations", "billed Lambda ms", "WRU", "RRU", "S3 PUTs"],
      cost.lines.map((line) => [
        `${line.unit} — ${line.part}`,
        n(line.work.apiRequests, 3),
        n(line.work.lambdaInvocations, 3),
        n(line.work.lambdaBilledMs, 3),
        n(line.work.writeRequestUnits, 3),
        n(line.work.readRequestUnits, 3),
        n(line.work.s3Puts, 0),
      ]),
    ),
    "",
  );
  out.push(
    `Sensitivity (not the verdict): at ${cost.memoryMb} MB a function gets about min(1, ${cost.memoryMb}/1,769) of a vCPU, so CPU-bound work may run slower ` +
      `there than on this machine. Scaling each invocation's measured CPU time by max(1, 1,769/${cost.memoryMb}) (DynamoDB waits unchanged) gives: ` +
      cost.lines
        .filter((line) => line.part !== "counting" && line.part !== "export marking")
        .map(
          (line) =>
            `${line.unit} ${line.part} ${usd(line.cpuScaled.cost.total)} (Lambda duration ${usd(line.cpuScaled.cost.lambdaDuration)}, ${n(line.cpuScaled.work.lambdaBilledMs, 2)} billed ms per unit)`,
        )
        .join("; ") +
      `. Not in the brief's price list either: CloudWatch Logs ingestion of the one request log line per invocation ` +
      `($${cost.cloudWatchLogsPerGb}/GB as known, unverified) would add ` +
      cost.lines
        .filter((line) => line.part !== "counting" && line.part !== "export marking")
        .map((line) => `${usd(line.logIngestionPerMillion)} (${line.unit} ${line.part})`)
        .join(", ") +
      " per million; the EMF metrics lines Lambda also writes are not emitted locally and not counted.",
    "",
  );

  const sizing = results.memorySizing;
  out.push("## 7. Lambda memory size (measured duration × price)", "");
  out.push(
    "Each size modelled from section 3's invocations: the measured CPU time scaled to the size's share of a vCPU (min(1, MB ÷ 1,769)), DynamoDB waits unchanged, " +
      "priced as in section 6. Cold import: the median of section 5 scaled the same way (an upper bound: Node's import is mostly CPU). " +
      `Rule: the smallest size whose single-event handler stays within ${sizing.maxSlowdown}× its full-vCPU duration ` +
      "(cost is flat across sizes, so latency decides). " +
      `Bench's choice: **${sizing.chosenMb ?? "none"} MB**; configured in lib/constructs/api-function.ts: **${sizing.configuredMb} MB**` +
      `${sizing.chosenMb === sizing.configuredMb ? " (the same)." : " (they differ: update the construct)."}`,
    "",
    table(
      [
        "memory MB",
        "single event ms (model)",
        "÷ full vCPU",
        "$ per M single events",
        "$ per M batched events",
        "cold import ms (model)",
        "choice",
      ],
      sizing.options.map((option) => [
        String(option.memoryMb),
        n(option.singleEventMs),
        n(option.slowdown),
        usd(option.singleEventCostPerMillion),
        usd(option.batchedEventCostPerMillion),
        n(option.coldImportMs, 0),
        option.memoryMb === sizing.chosenMb
          ? "**chosen**"
          : option.memoryMb === sizing.configuredMb
            ? "configured"
            : "",
      ]),
    ),
    "",
  );

  out.push("## Memory of the local server", "");
  out.push(
    `${memory.route} at ${memory.connections} connections for ${memory.seconds} s — ${meta.rssSecondsSource}: ` +
      `${int(memory.load.responses)} requests, ${int(memory.load.requestsPerSecond)} req/s, ${memory.load.errorCount} errors.`,
    "",
  );
  out.push(
    table(
      ["moment", "RSS MiB", "heap used MiB"],
      [
        ["server started (no request yet)", mib(memory.idle.rss), mib(memory.idle.heapUsed)],
        [
          `start of the load run (after the endpoint runs, the counting drain and ${n(memory.warmUp.seconds, 0)} s of the same load)`,
          mib(memory.atStart.rss),
          mib(memory.atStart.heapUsed),
        ],
        ["end of the load run", mib(memory.atEnd.rss), mib(memory.atEnd.heapUsed)],
      ],
    ),
    "",
  );
  out.push(`RSS change over the load run: ${n((memory.atEnd.rss - memory.atStart.rss) / 1024 / 1024, 1)} MiB.`, "");

  out.push(...decodeCostMarkdown(results.decodeCost));
  out.push(...pricingMarkdown(results.pricing.calls, results.pricing.path));
  if (results.monitors !== undefined) out.push(...monitorCostMarkdown(results.monitors));

  out.push("## Errors", "");
  out.push(
    `Endpoint runs: ${results.errors.endpointErrors} errors (connection errors, timeouts, unexpected statuses, failed batch items). ` +
      `In-process handler invocations: ${results.errors.handlerFailures} failures. WARN/ERROR log lines: ${results.errors.serverProblemLogLines} ` +
      `from the server, ${results.errors.benchProcessProblemLogLines} in the bench process. Stream consumer: ${results.errors.streamPollErrors} failed polls, ` +
      `${results.errors.countingPartialFailures} invocations answering with a failed record (read again).`,
    "",
  );

  out.push("## Notes", "");
  for (const note of results.notes) out.push(`- ${note}`);
  out.push("");
  return out.join("\n");
}
