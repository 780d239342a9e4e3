/**
 * `npm run bench:python`: events/s one Python process sustains with the Python client (`ats`, background mode)
 * against the local stack, beside the batch route's own ceiling driven directly over HTTP in the same run, and the
 * CPU time one `run.tool_call()` costs the agent's thread. Written to bench/python-results.json and .md.
 *
 * DynamoDB Local and the local API run in this process on 127.0.0.1, as in `npm run bench:sdk`. Each round runs,
 * in a rotating order, on fresh sessions: the two direct modes of bench/harness/batch-route.ts (the ceiling is the
 * better of the two) and `python`: bench/python/throughput_agent.py as a child process — one AgentTracker
 * (defaults but max_queue_size), the sessions started and created first, then N `run.tool_call()` round-robin in
 * a tight loop and `shutdown()`, timed from the first record to shutdown's return; the loop's CPU time is
 * `time.thread_time()` of the agent's thread (the delivery thread's work is not in it).
 * After each mode the events stored for its sessions, read back through the read API, must add up to N.
 * Knobs: BENCH_PYTHON_EVENTS (6000), BENCH_PYTHON_ROUNDS (3), BENCH_PYTHON_SESSIONS (20), BENCH_PYTHON_CONCURRENCY
 * (4, the Python client's default max_concurrency), ATS_BENCH_PYTHON (python3).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../local/settings.js";
import { startBenchDatabase } from "./bench-database.js";
import { batchRoute, type DirectResult, directEvent } from "./harness/batch-route.js";
import { installLogSink, logCounters } from "./harness/log-sink.js";
import { machineInfo } from "./harness/machine.js";
import { median } from "./harness/stats.js";
import { integerSetting, startThroughputApi } from "./harness/throughput-api.js";

const SESSIONS = integerSetting("BENCH_PYTHON_SESSIONS", 20);
const EVENTS = Math.ceil(integerSetting("BENCH_PYTHON_EVENTS", 6000) / SESSIONS) * SESSIONS;
const ROUNDS = integerSetting("BENCH_PYTHON_ROUNDS", 3);
const CONCURRENCY = integerSetting("BENCH_PYTHON_CONCURRENCY", 4);
const BATCH_SIZE = 100;
const WARM_UP_EVENTS = Math.max(SESSIONS, Math.round(EVENTS / 10 / SESSIONS) * SESSIONS);
const PYTHON = process.env.ATS_BENCH_PYTHON ?? "python3";
const AGENT = join(REPOSITORY_ROOT, "bench", "python", "throughput_agent.py");
const WATCHDOG_MS = 8 * 60 * 1000;

const startedAt = new Date();
const loadAtStart = loadavg()[0] ?? Number.NaN;
const benchStarted = performance.now();
const log = (line: string) =>
  process.stdout.write(`[${((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
const watchdog = setTimeout(() => {
  process.stderr.write(`bench:python: still running after ${WATCHDOG_MS / 60_000} minutes; aborting\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();
process.once("SIGINT", () => process.exit(130));
process.once("SIGTERM", () => process.exit(143));
installLogSink();

/** What the Python agent prints (bench/python/throughput_agent.py). */
interface PythonResult {
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly loopMs: number;
  readonly cpuMicrosecondsPerCall: number;
  readonly wallMicrosecondsPerCall: number;
  readonly deliveryCpuMicrosecondsPerEvent: number;
  readonly batchRequests: number;
  readonly eventsPerBatchRequest: number;
  readonly retries: number;
  readonly bytesSent: number;
  readonly bytesBeforeCompression: number;
  readonly delivered: number;
  readonly failed: number;
  readonly dropped: number;
  readonly errors: readonly string[];
  readonly sessionIds: readonly string[];
  readonly python: string;
}

function runPythonAgent(url: string, key: string, events: number): Promise<PythonResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [AGENT, url, key, String(events), String(SESSIONS)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the Python agent exited with ${code}: ${stderr.slice(-2000)}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as PythonResult);
    });
  });
}

type Mode = "direct-stream" | "direct-session" | "python";

/** One round of the results table. */
interface Row {
  readonly round: number;
  readonly order: string;
  readonly directStreamEventsPerSecond: number;
  readonly directPerSessionEventsPerSecond: number;
  readonly directCeilingEventsPerSecond: number;
  readonly pythonEventsPerSecond: number;
  readonly pythonOverCeiling: number;
  readonly cpuMicrosecondsPerCall: number;
  readonly wallMicrosecondsPerCall: number;
  readonly deliveryCpuMicrosecondsPerEvent: number;
  readonly eventsPerRequest: number;
  readonly retries: number;
  readonly bytesSent: number;
  readonly bytesBeforeCompression: number;
  readonly gzipRatio: number;
  readonly stored: number;
  readonly python: string;
}
const MODES: readonly Mode[] = ["direct-stream", "direct-session", "python"];

const dynamo = await startBenchDatabase("ats-bench-python");
let closeApi: (() => Promise<void>) | undefined;
try {
  const api = await startThroughputApi("bench-python", "bench-python");
  closeApi = api.close;
  const route = batchRoute({
    url: api.url,
    key: api.key,
    sessions: SESSIONS,
    concurrency: CONCURRENCY,
    batchSize: BATCH_SIZE,
  });
  const problems: string[] = [];

  async function runMode(
    mode: Mode,
    events: number,
    round: string,
  ): Promise<DirectResult | (PythonResult & { stored: number })> {
    if (mode !== "python") {
      const result = await route.directRun(mode, events);
      if (result.storedEvents !== events) problems.push(`${round} ${mode}: ${result.storedEvents} stored of ${events}`);
      log(
        `  ${mode}: ${result.eventsPerSecond.toFixed(0)} events/s (${result.seconds.toFixed(2)} s, ${result.meanInFlight.toFixed(2)} in flight; stored ${result.storedEvents})`,
      );
      return result;
    }
    const result = await runPythonAgent(api.url, api.key, events);
    const stored = await route.storedEventCount(result.sessionIds);
    if (stored !== events || result.delivered !== events || result.failed > 0 || result.dropped > 0)
      problems.push(
        `${round} python: stored ${stored}, delivered ${result.delivered}, failed ${result.failed}, dropped ${result.dropped} of ${events}; ${result.errors.join(" | ")}`,
      );
    log(
      `  python: ${result.eventsPerSecond.toFixed(0)} events/s (${result.seconds.toFixed(2)} s; loop ${result.wallMicrosecondsPerCall.toFixed(1)} µs/call wall, ${result.cpuMicrosecondsPerCall.toFixed(1)} µs/call CPU of the agent thread; ${result.batchRequests} requests, ${result.eventsPerBatchRequest.toFixed(1)} events each; wire ${result.bytesSent} of ${result.bytesBeforeCompression} bytes; stored ${stored})`,
    );
    return { ...result, stored };
  }

  log(`warm-up: ${WARM_UP_EVENTS} events in each mode (not counted)`);
  for (const mode of MODES) await runMode(mode, WARM_UP_EVENTS, "warm-up");

  const rows: Row[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] as Mode);
    log(`round ${round + 1}/${ROUNDS}: ${EVENTS} events per mode over ${SESSIONS} sessions (${order.join(", ")})`);
    const results = new Map<Mode, Awaited<ReturnType<typeof runMode>>>();
    for (const mode of order) results.set(mode, await runMode(mode, EVENTS, `round ${round + 1}`));
    const stream = results.get("direct-stream") as DirectResult;
    const perSession = results.get("direct-session") as DirectResult;
    const python = results.get("python") as PythonResult & { stored: number };
    const ceiling = Math.max(stream.eventsPerSecond, perSession.eventsPerSecond);
    rows.push({
      round: round + 1,
      order: order.join(" → "),
      directStreamEventsPerSecond: stream.eventsPerSecond,
      directPerSessionEventsPerSecond: perSession.eventsPerSecond,
      directCeilingEventsPerSecond: ceiling,
      pythonEventsPerSecond: python.eventsPerSecond,
      pythonOverCeiling: python.eventsPerSecond / ceiling,
      cpuMicrosecondsPerCall: python.cpuMicrosecondsPerCall,
      wallMicrosecondsPerCall: python.wallMicrosecondsPerCall,
      deliveryCpuMicrosecondsPerEvent: python.deliveryCpuMicrosecondsPerEvent,
      eventsPerRequest: python.eventsPerBatchRequest,
      retries: python.retries,
      bytesSent: python.bytesSent,
      bytesBeforeCompression: python.bytesBeforeCompression,
      gzipRatio: python.bytesSent / python.bytesBeforeCompression,
      stored: python.stored,
      python: python.python,
    });
  }
  await api.close();
  closeApi = undefined;

  const medianOf = (pick: (row: Row) => number) => median(rows.map(pick));
  const summary = {
    directStreamEventsPerSecond: medianOf((row) => row.directStreamEventsPerSecond),
    directPerSessionEventsPerSecond: medianOf((row) => row.directPerSessionEventsPerSecond),
    directCeilingEventsPerSecond: medianOf((row) => row.directCeilingEventsPerSecond),
    pythonEventsPerSecond: medianOf((row) => row.pythonEventsPerSecond),
    pythonOverCeiling: medianOf((row) => row.pythonOverCeiling),
    cpuMicrosecondsPerCall: medianOf((row) => row.cpuMicrosecondsPerCall),
    wallMicrosecondsPerCall: medianOf((row) => row.wallMicrosecondsPerCall),
    deliveryCpuMicrosecondsPerEvent: medianOf((row) => row.deliveryCpuMicrosecondsPerEvent),
    eventsPerRequest: medianOf((row) => row.eventsPerRequest),
    gzipRatio: medianOf((row) => row.gzipRatio),
  };
  const target = 0.9;
  const met = summary.pythonOverCeiling >= target;
  const finishedAt = new Date();
  const runtimeSeconds = (performance.now() - benchStarted) / 1000;
  const results = {
    meta: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      runtimeSeconds,
      ...machineInfo(),
      python: rows[0]?.python,
      loadAverage: { atStart: loadAtStart, atEnd: loadavg()[0] ?? Number.NaN },
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
    target: { name: "Python client events/s ÷ the batch route's ceiling (direct)", threshold: `≥ ${target}`, met },
    summary,
    rounds: rows,
    problems,
    serverProblemLogLines: logCounters().problemLines,
  };
  writeFileSync(join(REPOSITORY_ROOT, "bench", "python-results.json"), `${JSON.stringify(results, null, 2)}\n`);

  const f = (value: number, digits = 0) => value.toFixed(digits);
  const table = [
    "| round | order | direct, stream order ev/s | direct, per session ev/s | ceiling ev/s | Python ev/s | Python ÷ ceiling | CPU µs per tool_call() (agent thread) | wall µs per tool_call() | delivery thread CPU µs per event | events / request | wire bytes / uncompressed |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (row) =>
        `| ${row.round} | ${row.order} | ${f(row.directStreamEventsPerSecond)} | ${f(row.directPerSessionEventsPerSecond)} | ${f(row.directCeilingEventsPerSecond)} | ${f(row.pythonEventsPerSecond)} | ${f(row.pythonOverCeiling, 2)} | ${f(row.cpuMicrosecondsPerCall, 1)} | ${f(row.wallMicrosecondsPerCall, 1)} | ${f(row.deliveryCpuMicrosecondsPerEvent, 1)} | ${f(row.eventsPerRequest, 1)} | ${row.bytesSent} / ${row.bytesBeforeCompression} (${f(row.gzipRatio * 100, 1)} %) |`,
    ),
    `| **median** | | **${f(summary.directStreamEventsPerSecond)}** | **${f(summary.directPerSessionEventsPerSecond)}** | **${f(summary.directCeilingEventsPerSecond)}** | **${f(summary.pythonEventsPerSecond)}** | **${f(summary.pythonOverCeiling, 2)}** | **${f(summary.cpuMicrosecondsPerCall, 1)}** | **${f(summary.wallMicrosecondsPerCall, 1)}** | **${f(summary.deliveryCpuMicrosecondsPerEvent, 1)}** | **${f(summary.eventsPerRequest, 1)}** | **${f(summary.gzipRatio * 100, 1)} %** |`,
  ];
  const markdown = [
    "# Python client throughput (`npm run bench:python`)",
    "",
    `Run ${startedAt.toISOString()} → ${finishedAt.toISOString()} (${f(runtimeSeconds)} s) on ${results.meta.cpus} × ${results.meta.cpuModel}, Node ${process.version}, Python ${results.meta.python}, ${process.platform}/${process.arch}.`,
    `Load average (1 min) ${f(results.meta.loadAverage.atStart, 1)} at the start, ${f(results.meta.loadAverage.atEnd, 1)} at the end: the machine is shared, so rounds vary; each ratio is measured side by side within its round.`,
    `DynamoDB Local and the local API in the bench's Node process on 127.0.0.1; ${ROUNDS} rounds of ${EVENTS} tool_call events (${results.meta.eventJsonBytes} bytes of JSON each) over ${SESSIONS} fresh sessions per mode, after a ${WARM_UP_EVENTS}-event warm-up of each mode.`,
    `Direct: ${BATCH_SIZE}-event \`POST /api/sdk/events/batch\` requests, ${CONCURRENCY} in flight, uncompressed (bench/harness/batch-route.ts, the same as \`npm run bench:sdk\`); the ceiling is the better of "stream order" and "per session".`,
    `Python: one process (bench/python/throughput_agent.py), one \`AgentTracker\` in background mode (defaults, max_queue_size ${Math.max(EVENTS, 10_000)}), sessions started and created before the clock, then ${EVENTS} \`run.tool_call()\` round-robin in a tight loop and \`shutdown()\`; timed from the first record to shutdown's return. CPU per call is \`time.thread_time()\` of the agent's thread over the loop (the delivery thread's serialising, gzip and HTTP are not in it); wall per call is the loop's elapsed time, which includes waiting for the GIL and for the OS to schedule the thread again after each hand-over to the delivery thread (it grows with the machine's load); the delivery thread's CPU is the rest of the process's CPU time over the run, per event. The medians are per column (the median ratio is not the ratio of the medians).`,
    "",
    ...table,
    "",
    `Target: Python ≥ ${target * 100} % of the batch route's ceiling — **${met ? "met" : "missed"}** (median ${f(summary.pythonOverCeiling * 100, 1)} %).`,
    `Every mode's sessions read back with their events summing to N: ${problems.length === 0 ? "yes (no loss, no duplicate)" : `NO: ${problems.join("; ")}`}.`,
    "",
  ].join("\n");
  writeFileSync(join(REPOSITORY_ROOT, "bench", "python-results.md"), markdown);
  process.stdout.write(`\n${table.join("\n")}\n\n`);
  log(
    `Python ÷ ceiling (median) ${f(summary.pythonOverCeiling * 100, 1)} %: ${met ? "MET" : "MISSED"}; wrote bench/python-results.md and .json`,
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
