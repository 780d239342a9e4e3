/**
 * `npm run bench:sdk`: events/s the client SDK sustains against the local
 * stack (one process, background mode) beside the batch route's own ceiling,
 * driven directly over HTTP in the same run, and the bytes on the wire with
 * and without gzip. Written to bench/sdk-results.json and bench/sdk-results.md.
 *
 * DynamoDB Local and the local API run in this process on 127.0.0.1, as in
 * `npm run bench:read`. Each round runs, in a rotating order, on fresh sessions:
 *
 *   direct, stream order   the N events in the order the agent records them (round-robin over the
 *                          sessions), cut into 100-event batches, C in flight, uncompressed JSON with an
 *                          Idempotency-Key and per-event idempotencyKey as the SDK sends them
 *   direct, per session    the same events, each batch one session's (no two batches in flight touch
 *                          the same session: no transaction conflicts); the route's ceiling is the better
 *                          of the two direct figures
 *   sdk                    one AgentTracker (background mode, defaults but maxQueueSize), the sessions
 *                          started (and created: `flush()`) first, then N `run.toolCall` round-robin as
 *                          fast as the loop goes, then `shutdown()`; timed from the first record to
 *                          shutdown's resolution
 *
 * After each mode the events stored for the sessions, read back through the read API, must add up to N (no loss, no duplicate).
 * Knobs: BENCH_SDK_EVENTS (6000), BENCH_SDK_ROUNDS (3), BENCH_SDK_SESSIONS (20), BENCH_SDK_CONCURRENCY (4).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../local/settings.js";
import { AgentTracker, type AtsError, type Run, type TrackerStats } from "../sdk/src/index.js";
import { startBenchDatabase } from "./bench-database.js";
import { batchRoute, type DirectResult, directEvent, sampled, toolFields } from "./harness/batch-route.js";
import { installLogSink, logCounters } from "./harness/log-sink.js";
import { machineInfo } from "./harness/machine.js";
import { median } from "./harness/stats.js";
import { integerSetting, startThroughputApi } from "./harness/throughput-api.js";

const SESSIONS = integerSetting("BENCH_SDK_SESSIONS", 20);
const EVENTS = Math.ceil(integerSetting("BENCH_SDK_EVENTS", 6000) / SESSIONS) * SESSIONS;
const ROUNDS = integerSetting("BENCH_SDK_ROUNDS", 3);
/** The SDK's default `maxConcurrency`. */
const CONCURRENCY = integerSetting("BENCH_SDK_CONCURRENCY", 4);
/** The SDK's default `maxBatchSize`. */
const BATCH_SIZE = 100;
const WARM_UP_EVENTS = Math.max(SESSIONS, Math.round(EVENTS / 10 / SESSIONS) * SESSIONS);
const TABLE = "ats-bench-sdk";
const ORG = "bench-sdk";
const WATCHDOG_MS = 8 * 60 * 1000;

const startedAt = new Date();
const benchStarted = performance.now();
const log = (line: string) =>
  process.stdout.write(`[${((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

const watchdog = setTimeout(() => {
  process.stderr.write(`bench:sdk: still running after ${WATCHDOG_MS / 60_000} minutes; aborting\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();
process.once("SIGINT", () => process.exit(130));
process.once("SIGTERM", () => process.exit(143));
// The handlers' per-request INFO lines are built but not printed.
installLogSink();

interface Memory {
  readonly rssMb: number;
  readonly heapUsedMb: number;
}
const memory = (): Memory => {
  const usage = process.memoryUsage();
  return { rssMb: usage.rss / 2 ** 20, heapUsedMb: usage.heapUsed / 2 ** 20 };
};

type Mode = "direct-stream" | "direct-session" | "sdk" | "sdk-session-major";
const MODES: readonly Mode[] = ["direct-stream", "direct-session", "sdk", "sdk-session-major"];

interface SdkResult {
  /** `sdk`: the agent records round-robin over its sessions; `sdk-session-major`: one session's events after the other's (a diagnostic). */
  readonly mode: "sdk" | "sdk-session-major";
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly loopMs: number;
  readonly microsecondsPerCall: number;
  /** Requests made after the sessions were created: the batches (and their retries). */
  readonly batchRequests: number;
  readonly eventsPerBatchRequest: number;
  readonly retries: number;
  readonly bytesSent: number;
  readonly bytesBeforeCompression: number;
  readonly gzipRatio: number;
  readonly meanInFlight: number;
  readonly maxInFlight: number;
  readonly firstRequestAfterMs: number | undefined;
  readonly delivered: number;
  readonly failed: number;
  readonly dropped: number;
  readonly errors: readonly string[];
  readonly memoryBefore: Memory;
  readonly memoryAfter: Memory;
  readonly storedEvents: number;
}

const dynamo = await startBenchDatabase(TABLE);
let closeApi: (() => Promise<void>) | undefined;
try {
  const api = await startThroughputApi(ORG, "bench-sdk");
  const key = api.key;
  closeApi = api.close;

  const { storedEventCount, directRun } = batchRoute({
    url: api.url,
    key,
    sessions: SESSIONS,
    concurrency: CONCURRENCY,
    batchSize: BATCH_SIZE,
  });

  async function sdkRun(mode: SdkResult["mode"], events: number): Promise<SdkResult> {
    const errors: AtsError[] = [];
    const memoryBefore = memory();
    const ats = new AgentTracker({
      apiKey: key,
      baseUrl: api.url,
      maxQueueSize: Math.max(events, 10_000),
      onError: (error) => errors.push(error),
    });
    const runs: Run[] = [];
    for (let index = 0; index < SESSIONS; index++)
      runs.push(await ats.startSession({ name: `sdk ${index}`, agentName: "bench-agent", userId: `user-${index}` }));
    // The sessions exist before the clock starts, as the direct runs' do.
    await ats.flush();
    const before = ats.stats();
    let loopMs = 0;
    const started = performance.now();
    const run = await sampled(
      () => ats.stats().requestsInFlight,
      async () => {
        if (mode === "sdk") {
          for (let index = 0; index < events; index++) runs[index % SESSIONS]?.toolCall(toolFields(index));
        } else {
          const perSession = events / SESSIONS;
          for (let index = 0; index < events; index++)
            runs[Math.floor(index / perSession)]?.toolCall(toolFields(index));
        }
        loopMs = performance.now() - started;
        return ats.shutdown({ timeoutMs: 120_000 });
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const after: TrackerStats = run.value;
    const memoryAfter = memory();
    const storedEvents = await storedEventCount(runs.map((r) => r.id));
    const bytesSent = after.bytesSent - before.bytesSent;
    const bytesBeforeCompression = after.bytesBeforeCompression - before.bytesBeforeCompression;
    const batchRequests = after.requests - before.requests;
    return {
      mode,
      events,
      seconds,
      eventsPerSecond: events / seconds,
      loopMs,
      microsecondsPerCall: (loopMs * 1000) / events,
      batchRequests,
      eventsPerBatchRequest: events / batchRequests,
      retries: after.retries - before.retries,
      bytesSent,
      bytesBeforeCompression,
      gzipRatio: bytesSent / bytesBeforeCompression,
      meanInFlight: run.mean,
      maxInFlight: run.max,
      firstRequestAfterMs: run.firstPositiveMs,
      delivered: after.eventsDelivered,
      failed: after.eventsFailed,
      dropped: after.eventsDropped,
      errors: errors.slice(0, 5).map((error) => `${error.code}: ${error.message}`),
      memoryBefore,
      memoryAfter,
      storedEvents,
    };
  }

  const runMode = (mode: Mode, events: number) =>
    mode === "sdk" || mode === "sdk-session-major" ? sdkRun(mode, events) : directRun(mode, events);
  const isSdk = (result: DirectResult | SdkResult): result is SdkResult => "loopMs" in result;
  const problems: string[] = [];
  const check = (round: string, result: DirectResult | SdkResult) => {
    if (result.storedEvents !== result.events)
      problems.push(`${round} ${result.mode}: ${result.storedEvents} events stored, ${result.events} sent`);
    if (isSdk(result) && (result.delivered !== result.events || result.failed > 0 || result.dropped > 0))
      problems.push(
        `${round} ${result.mode}: delivered ${result.delivered}, failed ${result.failed}, dropped ${result.dropped} of ${result.events}; ${result.errors.join(" | ")}`,
      );
  };
  const describe = (result: DirectResult | SdkResult) =>
    isSdk(result)
      ? `${result.mode}: ${result.eventsPerSecond.toFixed(0)} events/s (${result.seconds.toFixed(2)} s; loop ${result.microsecondsPerCall.toFixed(1)} µs/call; ${result.batchRequests} requests, ${result.eventsPerBatchRequest.toFixed(1)} events each, ${result.meanInFlight.toFixed(2)} in flight on average; wire ${result.bytesSent} of ${result.bytesBeforeCompression} bytes; stored ${result.storedEvents})`
      : `${result.mode}: ${result.eventsPerSecond.toFixed(0)} events/s (${result.seconds.toFixed(2)} s; ${result.requests} requests, ${result.meanInFlight.toFixed(2)} in flight on average; stored ${result.storedEvents})`;

  log(`warm-up: ${WARM_UP_EVENTS} events in each mode (not counted)`);
  for (const mode of MODES) {
    const result = await runMode(mode, WARM_UP_EVENTS);
    check("warm-up", result);
    log(`  ${describe(result)}`);
  }

  const rounds: { order: Mode[]; direct: DirectResult[]; sdk: SdkResult; sdkSessionMajor: SdkResult }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order so that no mode always runs first (or last) on a DynamoDB Local that fills up.
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] as Mode);
    log(`round ${round + 1}/${ROUNDS}: ${EVENTS} events per mode over ${SESSIONS} sessions (${order.join(", ")})`);
    const direct: DirectResult[] = [];
    let sdk: SdkResult | undefined;
    let sdkSessionMajor: SdkResult | undefined;
    for (const mode of order) {
      const result = await runMode(mode, EVENTS);
      check(`round ${round + 1}`, result);
      log(`  ${describe(result)}`);
      if (!isSdk(result)) direct.push(result);
      else if (result.mode === "sdk") sdk = result;
      else sdkSessionMajor = result;
    }
    if (sdk === undefined || sdkSessionMajor === undefined) throw new Error("no sdk result");
    rounds.push({ order, direct, sdk, sdkSessionMajor });
  }
  await api.close();
  closeApi = undefined;

  // ---- the report ----
  const directOf = (round: (typeof rounds)[number], mode: DirectResult["mode"]) => {
    const found = round.direct.find((result) => result.mode === mode);
    if (found === undefined) throw new Error(`no ${mode} result`);
    return found;
  };
  const rows = rounds.map((round, index) => {
    const stream = directOf(round, "direct-stream");
    const perSession = directOf(round, "direct-session");
    const ceiling = Math.max(stream.eventsPerSecond, perSession.eventsPerSecond);
    return {
      round: index + 1,
      order: round.order.join(" → "),
      directStreamEventsPerSecond: stream.eventsPerSecond,
      directPerSessionEventsPerSecond: perSession.eventsPerSecond,
      directCeilingEventsPerSecond: ceiling,
      sdkEventsPerSecond: round.sdk.eventsPerSecond,
      sdkOverCeiling: round.sdk.eventsPerSecond / ceiling,
      sdkOverDirectStream: round.sdk.eventsPerSecond / stream.eventsPerSecond,
      sdkSessionMajorEventsPerSecond: round.sdkSessionMajor.eventsPerSecond,
      sdkSessionMajorOverCeiling: round.sdkSessionMajor.eventsPerSecond / ceiling,
      sdkSessionMajorMeanInFlight: round.sdkSessionMajor.meanInFlight,
      sdkMicrosecondsPerCall: round.sdk.microsecondsPerCall,
      sdkEventsPerRequest: round.sdk.eventsPerBatchRequest,
      sdkMeanInFlight: round.sdk.meanInFlight,
      directMeanInFlight: Math.min(stream.meanInFlight, perSession.meanInFlight),
      bytesSent: round.sdk.bytesSent,
      bytesBeforeCompression: round.sdk.bytesBeforeCompression,
      gzipRatio: round.sdk.gzipRatio,
      rssMbBefore: round.sdk.memoryBefore.rssMb,
      rssMbAfter: round.sdk.memoryAfter.rssMb,
      heapMbBefore: round.sdk.memoryBefore.heapUsedMb,
      heapMbAfter: round.sdk.memoryAfter.heapUsedMb,
    };
  });
  const medianOf = (pick: (row: (typeof rows)[number]) => number) => median(rows.map(pick));
  const summary = {
    directStreamEventsPerSecond: medianOf((row) => row.directStreamEventsPerSecond),
    directPerSessionEventsPerSecond: medianOf((row) => row.directPerSessionEventsPerSecond),
    directCeilingEventsPerSecond: medianOf((row) => row.directCeilingEventsPerSecond),
    sdkEventsPerSecond: medianOf((row) => row.sdkEventsPerSecond),
    sdkOverCeiling: medianOf((row) => row.sdkOverCeiling),
    sdkOverDirectStream: medianOf((row) => row.sdkOverDirectStream),
    sdkSessionMajorEventsPerSecond: medianOf((row) => row.sdkSessionMajorEventsPerSecond),
    sdkSessionMajorOverCeiling: medianOf((row) => row.sdkSessionMajorOverCeiling),
    sdkSessionMajorMeanInFlight: medianOf((row) => row.sdkSessionMajorMeanInFlight),
    sdkMicrosecondsPerCall: medianOf((row) => row.sdkMicrosecondsPerCall),
    sdkEventsPerRequest: medianOf((row) => row.sdkEventsPerRequest),
    sdkMeanInFlight: medianOf((row) => row.sdkMeanInFlight),
    gzipRatio: medianOf((row) => row.gzipRatio),
    bytesPerEventSent: medianOf((row) => row.bytesSent / EVENTS),
    bytesPerEventUncompressed: medianOf((row) => row.bytesBeforeCompression / EVENTS),
  };
  const target = 0.9;
  const met = summary.sdkOverCeiling >= target;
  const finishedAt = new Date();
  const runtimeSeconds = (performance.now() - benchStarted) / 1000;
  const results = {
    meta: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      runtimeSeconds,
      ...machineInfo(),
      settings: {
        events: EVENTS,
        sessions: SESSIONS,
        rounds: ROUNDS,
        concurrency: CONCURRENCY,
        batchSize: BATCH_SIZE,
        warmUpEvents: WARM_UP_EVENTS,
      },
      eventJsonBytes: Buffer.byteLength(directEvent("ses_01JBENCH000000000000000000", 1234)),
    },
    target: { name: "SDK events/s ÷ the batch route's ceiling (direct)", threshold: `≥ ${target}`, met },
    summary,
    rounds: rows,
    // The order as one string: a JSON array of short strings would not be in the formatter's layout.
    raw: rounds.map((round) => ({ ...round, order: round.order.join(" → ") })),
    problems,
    serverProblemLogLines: logCounters().problemLines,
  };
  writeFileSync(join(REPOSITORY_ROOT, "bench", "sdk-results.json"), `${JSON.stringify(results, null, 2)}\n`);

  const f = (value: number, digits = 0) => value.toFixed(digits);
  const table = [
    "| round | order | direct, stream order ev/s | direct, per session ev/s | SDK ev/s | SDK ÷ ceiling | SDK ÷ stream order | µs per toolCall() | events / request | in flight (SDK) | diagnostic: SDK, session-major recording ev/s (÷ ceiling; in flight) | wire bytes / uncompressed | RSS MiB before → after | heap MiB before → after |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (row) =>
        `| ${row.round} | ${row.order} | ${f(row.directStreamEventsPerSecond)} | ${f(row.directPerSessionEventsPerSecond)} | ${f(row.sdkEventsPerSecond)} | ${f(row.sdkOverCeiling, 2)} | ${f(row.sdkOverDirectStream, 2)} | ${f(row.sdkMicrosecondsPerCall, 1)} | ${f(row.sdkEventsPerRequest, 1)} | ${f(row.sdkMeanInFlight, 2)} | ${f(row.sdkSessionMajorEventsPerSecond)} (${f(row.sdkSessionMajorOverCeiling, 2)}; ${f(row.sdkSessionMajorMeanInFlight, 2)}) | ${row.bytesSent} / ${row.bytesBeforeCompression} (${f(row.gzipRatio * 100, 1)} %) | ${f(row.rssMbBefore)} → ${f(row.rssMbAfter)} | ${f(row.heapMbBefore)} → ${f(row.heapMbAfter)} |`,
    ),
    `| **median** | | **${f(summary.directStreamEventsPerSecond)}** | **${f(summary.directPerSessionEventsPerSecond)}** | **${f(summary.sdkEventsPerSecond)}** | **${f(summary.sdkOverCeiling, 2)}** | **${f(summary.sdkOverDirectStream, 2)}** | **${f(summary.sdkMicrosecondsPerCall, 1)}** | **${f(summary.sdkEventsPerRequest, 1)}** | **${f(summary.sdkMeanInFlight, 2)}** | **${f(summary.sdkSessionMajorEventsPerSecond)} (${f(summary.sdkSessionMajorOverCeiling, 2)}; ${f(summary.sdkSessionMajorMeanInFlight, 2)})** | **${f(summary.gzipRatio * 100, 1)} %** | | |`,
  ];
  const markdown = [
    "# SDK throughput (`npm run bench:sdk`)",
    "",
    `Run ${startedAt.toISOString()} → ${finishedAt.toISOString()} (${f(runtimeSeconds)} s) on ${results.meta.cpus} × ${results.meta.cpuModel}, Node ${process.version}, ${process.platform}/${process.arch}.`,
    `DynamoDB Local and the local API in this one process on 127.0.0.1; ${ROUNDS} rounds of ${EVENTS} tool_call events (${results.meta.eventJsonBytes} bytes of JSON each) over ${SESSIONS} fresh sessions per mode, after a ${WARM_UP_EVENTS}-event warm-up of each mode.`,
    `Direct: ${BATCH_SIZE}-event \`POST /api/sdk/events/batch\` requests, ${CONCURRENCY} in flight, uncompressed, Idempotency-Key + per-event idempotencyKey; "stream order" cuts the round-robin stream the agent records, "per session" sends each session's events in its own batches. The ceiling is the better of the two.`,
    `SDK: one \`AgentTracker\` in background mode (defaults, maxQueueSize ${Math.max(EVENTS, 10_000)}), sessions started and created before the clock, then ${EVENTS} \`run.toolCall()\` round-robin in a tight loop and \`shutdown()\`; timed from the first record to shutdown's resolution. "in flight" is \`stats().requestsInFlight\` sampled every 2 ms. The diagnostic column is the same SDK run with the agent recording one session's events after the other's instead of round-robin (not the target's workload: it shows what the client reaches when its batches do not span sessions).`,
    "",
    ...table,
    "",
    `Target: SDK ≥ ${target * 100} % of the batch route's ceiling — **${met ? "met" : "missed"}** (median ${f(summary.sdkOverCeiling * 100, 1)} %).`,
    `Bytes on the wire per event: ${f(summary.bytesPerEventSent, 1)} with gzip vs ${f(summary.bytesPerEventUncompressed, 1)} uncompressed (${f(summary.gzipRatio * 100, 1)} %).`,
    `Every mode's sessions read back with eventCount summing to N: ${problems.length === 0 ? "yes (no loss, no duplicate)" : `NO: ${problems.join("; ")}`}.`,
    "",
  ].join("\n");
  writeFileSync(join(REPOSITORY_ROOT, "bench", "sdk-results.md"), markdown);
  process.stdout.write(`\n${table.join("\n")}\n\n`);
  log(
    `SDK ÷ ceiling (median) ${f(summary.sdkOverCeiling * 100, 1)} %: ${met ? "MET" : "MISSED"}; wrote bench/sdk-results.md and bench/sdk-results.json`,
  );
  if (problems.length > 0) {
    for (const problem of problems) log(`PROBLEM ${problem}`);
    process.exitCode = 1;
  }
} finally {
  await closeApi?.();
  await dynamo.stop();
  clearTimeout(watchdog);
}
