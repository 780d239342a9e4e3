/**
 * `npm run bench:otel`: spans/s ingested through the OTLP receiver (`POST /api/otel/v1/traces`, protobuf
 * and JSON) beside events/s through the batch route (`POST /api/sdk/events/batch`), in the same run,
 * against the local stack (DynamoDB Local and the local API in this process, on 127.0.0.1). Written to
 * bench/otel-results.json and bench/otel-results.md.
 *
 * After a warm-up round (not counted), each round runs the three modes in a rotating order, on fresh traces and sessions, C requests in flight:
 *
 *   batch           N tool_call events in 100-event batches, as the SDK sends them (`occurredAt` and an
 *                   `idempotencyKey` per event), over S sessions started first (their starts not timed)
 *   otlp-protobuf   N spans in exports of 512 (the OTel SDK's default batch), `application/x-protobuf`
 *                   encoded with protobufjs from the official protos: traces of 32 spans — a root
 *                   `invoke_agent` span and 31 children alternating `execute_tool` and `chat` (with token
 *                   usage) —, so every trace starts and ends a session within its export
 *   otlp-json       the same spans as OTLP JSON
 *
 * Every response is checked: each batch event 201, each export without `partialSuccess`.
 * Knobs: BENCH_OTEL_ITEMS (6144), BENCH_OTEL_ROUNDS (3), BENCH_OTEL_CONCURRENCY (4), BENCH_OTEL_SESSIONS (20).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { startBenchDatabase } from "./bench-database.js";
import { installLogSink } from "./harness/log-sink.js";
import { machineInfo } from "./harness/machine.js";
import { median, pool } from "./harness/stats.js";
import { integerSetting, startThroughputApi } from "./harness/throughput-api.js";

const SPANS_PER_EXPORT = 512;
const SPANS_PER_TRACE = 32;
const BATCH_SIZE = 100;
const ITEMS = Math.ceil(integerSetting("BENCH_OTEL_ITEMS", 6144) / SPANS_PER_EXPORT) * SPANS_PER_EXPORT;
const ROUNDS = integerSetting("BENCH_OTEL_ROUNDS", 3);
const CONCURRENCY = integerSetting("BENCH_OTEL_CONCURRENCY", 4);
const SESSIONS = integerSetting("BENCH_OTEL_SESSIONS", 20);
const TABLE = "ats-bench-otel";
const ORG = "bench-otel";
const WATCHDOG_MS = 8 * 60 * 1000;
const ROOT = join(import.meta.dirname, "..");

const benchStarted = performance.now();
const log = (line: string) =>
  process.stdout.write(`[${((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
const watchdog = setTimeout(() => {
  process.stderr.write(`bench:otel: still running after ${WATCHDOG_MS / 60_000} minutes; aborting\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();
installLogSink();

type Mode = "batch" | "otlp-protobuf" | "otlp-json";
const MODES: readonly Mode[] = ["batch", "otlp-protobuf", "otlp-json"];

interface ModeResult {
  readonly mode: Mode;
  readonly items: number;
  readonly events: number;
  readonly requests: number;
  readonly bodyBytes: number;
  readonly seconds: number;
  readonly itemsPerSecond: number;
  readonly eventsPerSecond: number;
}

const stringValue = (value: string) => ({ stringValue: value });
const intValue = (value: number) => ({ intValue: String(value) });
const attribute = (key: string, value: object) => ({ key, value });

/** One trace as OTLP JSON spans: the root and its children, times in the last minute. */
function traceSpans(traceIndex: number) {
  const traceId = randomBytes(16).toString("hex");
  const rootId = randomBytes(8).toString("hex");
  const base = BigInt(Date.now() - 60_000) * 1_000_000n;
  const at = (ms: number) => String(base + BigInt(ms) * 1_000_000n);
  const spans: object[] = [
    {
      traceId,
      spanId: rootId,
      name: "invoke_agent support-bot",
      startTimeUnixNano: at(0),
      endTimeUnixNano: at(SPANS_PER_TRACE * 10),
      attributes: [
        attribute("gen_ai.operation.name", stringValue("invoke_agent")),
        attribute("gen_ai.agent.name", stringValue("support-bot")),
        attribute("user.id", stringValue(`customer-${traceIndex % 97}`)),
      ],
      status: { code: 1 },
    },
  ];
  for (let child = 1; child < SPANS_PER_TRACE; child++) {
    const tool = child % 2 === 1;
    spans.push({
      traceId,
      spanId: randomBytes(8).toString("hex"),
      parentSpanId: rootId,
      name: tool ? "execute_tool search_orders" : "chat gpt-4o-mini",
      startTimeUnixNano: at(child * 10),
      endTimeUnixNano: at(child * 10 + 8),
      attributes: tool
        ? [
            attribute("gen_ai.operation.name", stringValue("execute_tool")),
            attribute("gen_ai.tool.name", stringValue("search_orders")),
            attribute("gen_ai.tool.call.arguments", stringValue(`{"query":"order ${child}","limit":3}`)),
            attribute(
              "gen_ai.tool.call.result",
              stringValue(`{"orderId":"A-${100_000 + child}","status":"delivered"}`),
            ),
          ]
        : [
            attribute("gen_ai.operation.name", stringValue("chat")),
            attribute("gen_ai.provider.name", stringValue("openai")),
            attribute("gen_ai.request.model", stringValue("gpt-4o-mini")),
            attribute("gen_ai.usage.input_tokens", intValue(420)),
            attribute("gen_ai.usage.output_tokens", intValue(36)),
          ],
    });
  }
  return spans;
}

function exportRequest(spans: readonly object[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [attribute("service.name", stringValue("support-bot"))] },
        scopeSpans: [{ scope: { name: "bench" }, spans }],
      },
    ],
  };
}

const protoRoot = new protobuf.Root();
protoRoot.resolvePath = (_origin, target) => join(ROOT, "proto", target);
protoRoot.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
const RequestType = protoRoot.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");

/** The OTLP JSON request as protobuf bytes (hex ids to bytes, as the JSON mapping says). */
function protobufBody(request: ReturnType<typeof exportRequest>): Uint8Array {
  const withBytes = JSON.parse(JSON.stringify(request), (key, value) =>
    (key === "traceId" || key === "spanId" || key === "parentSpanId") && typeof value === "string"
      ? Buffer.from(value, "hex")
      : value,
  ) as Record<string, unknown>;
  return RequestType.encode(RequestType.fromObject(withBytes)).finish();
}

const dynamo = await startBenchDatabase(TABLE);
let closeApi: (() => Promise<void>) | undefined;
try {
  const api = await startThroughputApi(ORG, "bench-otel");
  const key = api.key;
  closeApi = api.close;

  const post = async (path: string, contentType: string, body: string | Uint8Array) => {
    const response = await fetch(`${api.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": contentType },
      body,
    });
    return { status: response.status, text: await response.text() };
  };

  async function runBatch(): Promise<ModeResult> {
    const sessionIds: string[] = [];
    for (let index = 0; index < SESSIONS; index++) {
      const started = await post(
        "/api/sdk/sessions",
        "application/json",
        JSON.stringify({ name: "bench", agentName: "support-bot", userId: `customer-${index}` }),
      );
      if (started.status !== 201) throw new Error(`session start: ${started.status} ${started.text}`);
      sessionIds.push((JSON.parse(started.text) as { id: string }).id);
    }
    const bodies: string[] = [];
    for (let first = 0; first < ITEMS; first += BATCH_SIZE) {
      const events = [];
      for (let index = first; index < Math.min(ITEMS, first + BATCH_SIZE); index++) {
        events.push({
          sessionId: sessionIds[index % SESSIONS],
          eventType: "tool_call",
          occurredAt: new Date().toISOString(),
          toolName: "search_orders",
          toolInput: { query: `order ${index}`, limit: 3 },
          toolOutput: { orderId: `A-${100_000 + index}`, status: "delivered" },
          idempotencyKey: crypto.randomUUID(),
        });
      }
      bodies.push(JSON.stringify({ events }));
    }
    const started = performance.now();
    await pool(bodies, CONCURRENCY, async (body) => {
      const answer = await post("/api/sdk/events/batch", "application/json", body);
      const results = (JSON.parse(answer.text) as { results?: { status: number }[] }).results ?? [];
      if (answer.status !== 200 || results.some((result) => result.status !== 201)) {
        throw new Error(`batch: ${answer.status} ${answer.text.slice(0, 300)}`);
      }
    });
    const seconds = (performance.now() - started) / 1000;
    return {
      mode: "batch",
      items: ITEMS,
      events: ITEMS,
      requests: bodies.length,
      bodyBytes: bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0),
      seconds,
      itemsPerSecond: ITEMS / seconds,
      eventsPerSecond: ITEMS / seconds,
    };
  }

  async function runOtlp(mode: "otlp-protobuf" | "otlp-json"): Promise<ModeResult> {
    const bodies: (string | Uint8Array)[] = [];
    let traceIndex = 0;
    for (let first = 0; first < ITEMS; first += SPANS_PER_EXPORT) {
      const spans: object[] = [];
      while (spans.length < SPANS_PER_EXPORT) spans.push(...traceSpans(traceIndex++));
      const request = exportRequest(spans);
      bodies.push(mode === "otlp-json" ? JSON.stringify(request) : protobufBody(request));
    }
    const contentType = mode === "otlp-json" ? "application/json" : "application/x-protobuf";
    const started = performance.now();
    await pool(bodies, CONCURRENCY, async (body) => {
      const answer = await post("/api/otel/v1/traces", contentType, body);
      const accepted = answer.status === 200 && (mode === "otlp-protobuf" ? answer.text === "" : answer.text === "{}");
      if (!accepted) throw new Error(`${mode}: ${answer.status} ${answer.text.slice(0, 300)}`);
    });
    const seconds = (performance.now() - started) / 1000;
    const events = ITEMS - ITEMS / SPANS_PER_TRACE; // roots are the sessions, every other span one event
    return {
      mode,
      items: ITEMS,
      events,
      requests: bodies.length,
      bodyBytes: bodies.reduce(
        (sum, body) => sum + (typeof body === "string" ? Buffer.byteLength(body) : body.length),
        0,
      ),
      seconds,
      itemsPerSecond: ITEMS / seconds,
      eventsPerSecond: events / seconds,
    };
  }

  const run = (mode: Mode) => (mode === "batch" ? runBatch() : runOtlp(mode));
  const results: ModeResult[] = [];
  // Round 0 warms up (handlers imported, DynamoDB Local's JIT); it is logged but not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    const order = MODES.map((_, index) => MODES[(index + round) % MODES.length] as Mode);
    for (const mode of order) {
      const result = await run(mode);
      if (round > 0) results.push(result);
      log(
        `${round === 0 ? "warm-up" : `round ${round}`} ${mode.padEnd(13)} ${result.items} items in ${result.seconds.toFixed(2)} s: ${result.itemsPerSecond.toFixed(0)} items/s, ${result.eventsPerSecond.toFixed(0)} events/s`,
      );
    }
  }
  const medianOf = (mode: Mode, read: (result: ModeResult) => number) =>
    median(results.filter((result) => result.mode === mode).map(read));
  const batchEvents = medianOf("batch", (result) => result.eventsPerSecond);
  const summary = Object.fromEntries(
    MODES.map((mode) => [
      mode,
      {
        itemsPerSecond: medianOf(mode, (result) => result.itemsPerSecond),
        eventsPerSecond: medianOf(mode, (result) => result.eventsPerSecond),
        bytesPerItem: medianOf(mode, (result) => result.bodyBytes / result.items),
        itemsPerSecondRatioToBatch: medianOf(mode, (result) => result.itemsPerSecond) / batchEvents,
      },
    ]),
  );
  const report = {
    startedAt: new Date().toISOString(),
    machine: machineInfo(),
    settings: { ITEMS, ROUNDS, CONCURRENCY, SESSIONS, SPANS_PER_EXPORT, SPANS_PER_TRACE, BATCH_SIZE },
    summary,
    results,
  };
  writeFileSync(join(ROOT, "bench/otel-results.json"), `${JSON.stringify(report, null, 2)}\n`);
  const row = (mode: Mode) => {
    const entry = summary[mode] as (typeof summary)[string];
    return `| ${mode} | ${entry.itemsPerSecond.toFixed(0)} | ${entry.eventsPerSecond.toFixed(0)} | ${entry.itemsPerSecondRatioToBatch.toFixed(2)} | ${entry.bytesPerItem.toFixed(0)} |`;
  };
  const markdown = `# OTLP ingest vs the batch route (\`npm run bench:otel\`)

${report.startedAt}; ${ITEMS} items per mode and round, ${ROUNDS} rounds (medians), ${CONCURRENCY} requests in flight,
local stack in one process (DynamoDB Local, 127.0.0.1). OTLP: exports of ${SPANS_PER_EXPORT} spans, traces of
${SPANS_PER_TRACE} spans (one root = one session started and ended, ${SPANS_PER_TRACE - 1} children = events).
Batch: ${BATCH_SIZE} events per request, ${SESSIONS} sessions started beforehand (not timed).

| mode | items/s (spans or events) | events stored/s | items/s ÷ batch events/s | body bytes per item |
| --- | --- | --- | --- | --- |
${MODES.map(row).join("\n")}
`;
  writeFileSync(join(ROOT, "bench/otel-results.md"), markdown);
  log("written bench/otel-results.md and bench/otel-results.json");
} finally {
  await closeApi?.();
  await dynamo.stop();
}
