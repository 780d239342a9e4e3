/**
 * `npm run load`: a bounded autocannon load against the local stack, then a
 * check through the READ API that everything acknowledged was stored, once.
 *
 * Stack: an in-memory DynamoDB Local started here (never the developer's
 * .data), and `local/start.ts` as a child process with a temporary DATA_DIR
 * pointed at it (PORT=0; apiUrl and apiKey read from its local.json). The
 * per-key rate limit is raised for the child so the run measures the service,
 * not the limiter. Both are killed by pid when the run ends or fails.
 *
 * Load: ONE autocannon instance, LOAD_CONNECTIONS connections (default 32)
 * for LOAD_SECONDS seconds (default 20). Every connection loops over one
 * "agent run" (autocannon `requests` + `setupRequest`/`onResponse`, the
 * session id kept in the per-connection context):
 *   GET /api/sdk/agents → POST session → 5 × POST event → POST batch of 20 events → PATCH completed
 * (a read first because autocannon builds a dynamic first request once for
 * every connection at start-up, and they would all share its Idempotency-Key).
 * One instance rather than several keeps a single latency histogram over a
 * realistic mix, and each session's events follow their session.
 *
 * Exactness: every write carries an Idempotency-Key. When the duration ends,
 * autocannon drops the requests still in flight (the server may or may not
 * have processed them), so those are re-sent with the same key afterwards:
 * the service answers the original outcome or performs them now, and every
 * request ends up acknowledged exactly once. Then the READ API must show:
 * listed sessions = acknowledged sessions; each session's eventCount = its
 * acknowledged events (single 201s + batch results with 201); completed
 * sessions = acknowledged PATCHes; for a sample, the events list has exactly
 * that many distinct ids. Any non-2xx response during the load is an error.
 *
 * Counting lag: counters are counted from the table's stream a moment after
 * each write (npm start's poller, every STREAM_POLL_MS). While the load runs,
 * every LAG_SAMPLE_MS the newest acknowledged single event is sampled: its
 * session is read until its eventCount covers what was acknowledged at that
 * moment; the time from the 201 to that read is one lag sample (p50/p99
 * reported). At most MAX_OPEN_LAG_SAMPLES are followed at once, so the
 * sampling stays a small part of the load. After the load the read-back waits, bounded, until the counters
 * have caught up, and reports how long that took.
 *
 * Exit code 0 only when everything matches and there was no error.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { createLocalDynamoClient } from "../local/dynamo-endpoint.js";
import { type RunningDynamoDb, startDynamoDbLocal } from "../local/dynamodb-local.js";
import { REPOSITORY_ROOT } from "../local/settings.js";
import { ensureTable } from "../local/table-setup.js";

const CONNECTIONS = positiveInteger("LOAD_CONNECTIONS", 32);
const SECONDS = positiveInteger("LOAD_SECONDS", 20);
const SINGLE_EVENTS_PER_RUN = 5;
const BATCH_SIZE = 20;
const TABLE_NAME = "ats-load";
/** How often a lag sample starts during the load, and how long one may wait for its counters. */
const LAG_SAMPLE_MS = 100;
/** Samples followed at once (each reads its session every LAG_POLL_MS): the sampling must not become the load. */
const MAX_OPEN_LAG_SAMPLES = 4;
const LAG_POLL_MS = 50;
const LAG_SAMPLE_TIMEOUT_MS = 30_000;
/** How long the read-back waits for the counters to catch up after the load. */
const CATCH_UP_TIMEOUT_MS = 120_000;
/** Hard bound on the whole script: start-up, load, re-sends and verification. */
const WATCHDOG_MS = (SECONDS + 240) * 1000;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 10_000)
    throw new Error(`${name} must be 1–10000, got "${raw}"`);
  return value;
}

// ---------------------------------------------------------------------------
// The stack.
// ---------------------------------------------------------------------------

let dynamo: RunningDynamoDb | undefined;
let child: ChildProcess | undefined;
let dataDirectory: string | undefined;
let childErrors = "";

async function startStack(): Promise<{ apiUrl: string; apiKey: string }> {
  dynamo = await startDynamoDbLocal();
  const client = createLocalDynamoClient(dynamo.endpoint, dynamo.credentials);
  try {
    await ensureTable(client, TABLE_NAME);
  } finally {
    client.destroy();
  }
  dataDirectory = mkdtempSync(join(tmpdir(), "ats-load-"));
  child = spawn(process.execPath, ["--import", "tsx", "local/start.ts"], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDirectory,
      PORT: "0",
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_ACCESS_KEY_ID: dynamo.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: dynamo.credentials.secretAccessKey,
      TABLE_NAME,
      RATE_LIMIT_PER_MINUTE: "100000000",
    },
    // stdout carries the banner (with the key) and one log line per request: discarded, never printed.
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    childErrors = `${childErrors}${chunk.toString()}`.slice(-4_000);
  });
  const localJson = join(dataDirectory, "local.json");
  const deadline = Date.now() + 60_000;
  while (!existsSync(localJson)) {
    if (child.exitCode !== null) throw new Error(`local/start.ts exited with ${child.exitCode} before it was ready`);
    if (Date.now() > deadline) throw new Error("local/start.ts was not ready within 60 s");
    await sleep(100);
  }
  const { apiUrl, apiKey } = JSON.parse(readFileSync(localJson, "utf8")) as { apiUrl: string; apiKey: string };
  return { apiUrl, apiKey };
}

async function stopStack(): Promise<void> {
  const running = child;
  child = undefined;
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    const timer = setTimeout(() => running.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  await dynamo?.stop();
  dynamo = undefined;
  if (dataDirectory !== undefined) rmSync(dataDirectory, { recursive: true, force: true });
  dataDirectory = undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------
// What was sent and what was acknowledged.
// ---------------------------------------------------------------------------

type Kind = "read" | "session" | "event" | "batch" | "complete";

interface SentWrite {
  readonly kind: Exclude<Kind, "read">;
  readonly method: "POST" | "PATCH";
  readonly path: string;
  readonly body: string;
  readonly key: string;
  readonly sessionId?: string;
}

/** Per-connection state for one agent run (autocannon resets it when the request list starts over). */
interface RunContext {
  sessionId?: string;
  /** Idempotency-Key of the write this connection sent last. */
  key?: string;
}

/** Writes built and not yet answered, by Idempotency-Key. */
const pending = new Map<string, SentWrite>();
const acknowledgedSessions = new Set<string>();
const acknowledgedEvents = new Map<string, number>();
const acknowledgedCompletions = new Set<string>();
/** Responses by kind and status, e.g. "event 201". */
const outcomes = new Map<string, number>();
let replayed = 0;
/** The newest single event acknowledged: its session, how many events the session had acknowledged then, when. */
let newestAcknowledgement: { sessionId: string; acknowledged: number; at: number } | undefined;

function count(label: string): void {
  outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
}

function parse(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Records the outcome of a write; returns the session id a session create produced. */
function acknowledge(write: SentWrite, status: number, body: string): string | undefined {
  count(`${write.kind} ${status}`);
  const parsed = parse(body);
  switch (write.kind) {
    case "session": {
      if (status !== 201 || typeof parsed?.id !== "string") return undefined;
      acknowledgedSessions.add(parsed.id);
      return parsed.id;
    }
    case "event":
      if (status === 201 && write.sessionId !== undefined) {
        const acknowledged = (acknowledgedEvents.get(write.sessionId) ?? 0) + 1;
        acknowledgedEvents.set(write.sessionId, acknowledged);
        newestAcknowledgement = { sessionId: write.sessionId, acknowledged, at: performance.now() };
      }
      return undefined;
    case "batch": {
      if (status !== 200 || write.sessionId === undefined || !Array.isArray(parsed?.results)) return undefined;
      for (const result of parsed.results as { status?: unknown }[]) {
        count(`batch item ${String(result.status)}`);
        if (result.status === 201)
          acknowledgedEvents.set(write.sessionId, (acknowledgedEvents.get(write.sessionId) ?? 0) + 1);
      }
      return undefined;
    }
    case "complete":
      if (status === 200 && write.sessionId !== undefined) acknowledgedCompletions.add(write.sessionId);
      return undefined;
  }
}

// ---------------------------------------------------------------------------
// The autocannon request list (one agent run per loop).
// ---------------------------------------------------------------------------

let runs = 0;

function eventBody(sessionId: string, index: number): Record<string, unknown> {
  return {
    sessionId,
    eventType: index % 4 === 3 ? "llm_decision" : "tool_call",
    toolName: `tool-${index % 3}`,
    toolInput: { query: "refund policy", page: index },
    toolOutput: { hits: index % 7 },
    estimatedCost: 0.001,
    ...(index % 4 === 3 ? { confidence: 0.75, reasoning: "the customer asked twice" } : {}),
  };
}

function headersFor(apiKey: string, key: string) {
  return {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    "idempotency-key": key,
  };
}

type Setup = (request: autocannon.Request, context: RunContext) => autocannon.Request | undefined;
type OnResponse = (status: number, body: string, context: RunContext) => void;

/** autocannon's types say setupRequest returns a request; a falsy one restarts the list (documented). */
function asSetup(setup: Setup): (request: autocannon.Request, context: object) => autocannon.Request {
  return setup as (request: autocannon.Request, context: object) => autocannon.Request;
}
function asOnResponse(onResponse: OnResponse) {
  return onResponse as (status: number, body: string, context: object) => void;
}

/** Builds a write: records it as pending under a fresh Idempotency-Key. */
function write(
  apiKey: string,
  request: autocannon.Request,
  context: RunContext,
  sent: Omit<SentWrite, "key">,
): autocannon.Request {
  const key = randomUUID();
  pending.set(key, { ...sent, key });
  context.key = key;
  return { ...request, method: sent.method, path: sent.path, body: sent.body, headers: headersFor(apiKey, key) };
}

function answered(context: RunContext, status: number, body: string): string | undefined {
  const key = context.key;
  const sent = key === undefined ? undefined : pending.get(key);
  if (key === undefined || sent === undefined) return undefined;
  pending.delete(key);
  return acknowledge(sent, status, body);
}

function requestList(apiKey: string): autocannon.Request[] {
  const read: autocannon.Request = {
    method: "GET",
    path: "/api/sdk/agents",
    headers: { authorization: `Bearer ${apiKey}` },
    onResponse: asOnResponse((status) => count(`read ${status}`)),
  };
  const createSession: autocannon.Request = {
    setupRequest: asSetup((request, context) => {
      const run = runs++;
      return write(apiKey, request, context, {
        kind: "session",
        method: "POST",
        path: "/api/sdk/sessions",
        body: JSON.stringify({
          name: `load run ${run}`,
          agentName: `load-agent-${run % 4}`,
          userId: `load-user-${run % 16}`,
          metadata: { run },
        }),
      });
    }),
    onResponse: asOnResponse((status, body, context) => {
      const sessionId = answered(context, status, body);
      if (sessionId !== undefined) context.sessionId = sessionId;
    }),
  };
  const singleEvent = (index: number): autocannon.Request => ({
    setupRequest: asSetup((request, context) => {
      const sessionId = context.sessionId;
      if (sessionId === undefined) return undefined; // the create was not acknowledged: start a new run
      return write(apiKey, request, context, {
        kind: "event",
        method: "POST",
        path: "/api/sdk/events",
        body: JSON.stringify(eventBody(sessionId, index)),
        sessionId,
      });
    }),
    onResponse: asOnResponse((status, body, context) => void answered(context, status, body)),
  });
  const batch: autocannon.Request = {
    setupRequest: asSetup((request, context) => {
      const sessionId = context.sessionId;
      if (sessionId === undefined) return undefined;
      const events = Array.from({ length: BATCH_SIZE }, (_, index) =>
        eventBody(sessionId, SINGLE_EVENTS_PER_RUN + index),
      );
      return write(apiKey, request, context, {
        kind: "batch",
        method: "POST",
        path: "/api/sdk/events/batch",
        body: JSON.stringify({ events }),
        sessionId,
      });
    }),
    onResponse: asOnResponse((status, body, context) => void answered(context, status, body)),
  };
  const complete: autocannon.Request = {
    setupRequest: asSetup((request, context) => {
      const sessionId = context.sessionId;
      if (sessionId === undefined) return undefined;
      return write(apiKey, request, context, {
        kind: "complete",
        method: "PATCH",
        path: `/api/sdk/sessions/${sessionId}`,
        body: JSON.stringify({
          status: "completed",
          estimatedCost: 0.05,
          durationMs: 4_200,
          promptTokens: 1_200,
          completionTokens: 300,
          totalTokens: 1_500,
        }),
        sessionId,
      });
    }),
    onResponse: asOnResponse((status, body, context) => void answered(context, status, body)),
  };
  return [
    read,
    createSession,
    ...Array.from({ length: SINGLE_EVENTS_PER_RUN }, (_, index) => singleEvent(index)),
    batch,
    complete,
  ];
}

// ---------------------------------------------------------------------------
// After the load: settle what was in flight, then read everything back.
// ---------------------------------------------------------------------------

async function api(
  apiUrl: string,
  apiKey: string,
  method: string,
  path: string,
  options: { body?: string; key?: string } = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...(options.key === undefined ? {} : { "idempotency-key": options.key }),
    },
    ...(options.body === undefined ? {} : { body: options.body }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, text: await response.text() };
}

/** Re-sends each write the load left unanswered, with its Idempotency-Key, until it is acknowledged. */
async function settlePending(apiUrl: string, apiKey: string): Promise<number> {
  // Session creates first: a dropped create's events were never built (setupRequest needs its id).
  const order: SentWrite["kind"][] = ["session", "event", "batch", "complete"];
  const writes = [...pending.values()].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  pending.clear();
  for (const sent of writes) {
    for (let attempt = 1; ; attempt++) {
      const response = await api(apiUrl, apiKey, sent.method, sent.path, { body: sent.body, key: sent.key });
      // 409: the original request still holds the key (in flight); 5xx: retry is safe with the key.
      if ((response.status === 409 || response.status >= 500) && attempt < 20) {
        await sleep(250 * attempt);
        continue;
      }
      acknowledge(sent, response.status, response.text);
      break;
    }
  }
  replayed = writes.length;
  return writes.length;
}

async function listSessions(apiUrl: string, apiKey: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const query = `limit=100${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const response = await api(apiUrl, apiKey, "GET", `/api/sdk/sessions?${query}`);
    if (response.status !== 200) throw new Error(`listing sessions: HTTP ${response.status}`);
    const body = parse(response.text) as { items: { id: string }[]; nextCursor: string | null };
    ids.push(...body.items.map((item) => item.id));
    if (body.nextCursor === null) return ids;
    cursor = body.nextCursor;
  }
  throw new Error("listing sessions did not end");
}

async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

interface StoredSession {
  readonly id: string;
  readonly eventCount: number;
  readonly status: string;
}

async function storedSessions(apiUrl: string, apiKey: string, ids: readonly string[]): Promise<StoredSession[]> {
  return inParallel(ids, 8, async (id) => {
    const response = await api(apiUrl, apiKey, "GET", `/api/sdk/sessions/${id}`);
    if (response.status !== 200) throw new Error(`reading session ${id}: HTTP ${response.status}`);
    const body = parse(response.text) ?? {};
    return { id, eventCount: Number(body.eventCount), status: String(body.status) };
  });
}

async function listedEventIds(apiUrl: string, apiKey: string, sessionId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page++) {
    const query = `limit=100&fields=summary${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const response = await api(apiUrl, apiKey, "GET", `/api/sdk/sessions/${sessionId}/events?${query}`);
    if (response.status !== 200) throw new Error(`listing events of ${sessionId}: HTTP ${response.status}`);
    const body = parse(response.text) as { items: { id: string }[]; nextCursor: string | null };
    ids.push(...body.items.map((item) => item.id));
    if (body.nextCursor === null) return ids;
    cursor = body.nextCursor;
  }
  throw new Error("listing events did not end");
}

// ---------------------------------------------------------------------------
// Counting lag.
// ---------------------------------------------------------------------------

async function countedEvents(apiUrl: string, apiKey: string, sessionId: string): Promise<number> {
  const response = await api(apiUrl, apiKey, "GET", `/api/sdk/sessions/${sessionId}`);
  if (response.status !== 200) throw new Error(`reading session ${sessionId}: HTTP ${response.status}`);
  return Number(parse(response.text)?.eventCount);
}

/**
 * Samples the counting lag until `until` resolves: every LAG_SAMPLE_MS the newest acknowledged single event is
 * followed (its session read every LAG_POLL_MS, at most MAX_OPEN_LAG_SAMPLES at once) until its session's eventCount covers it. Resolves with the lags (ms)
 * and the samples that timed out.
 */
async function sampleLag(apiUrl: string, apiKey: string, until: Promise<unknown>) {
  const lags: number[] = [];
  let timedOut = 0;
  const samples: Promise<void>[] = [];
  let running = true;
  void until.finally(() => (running = false));
  let previous: typeof newestAcknowledgement;
  let open = 0;
  while (running) {
    await sleep(LAG_SAMPLE_MS);
    const target = newestAcknowledgement;
    if (target === undefined || target === previous || open >= MAX_OPEN_LAG_SAMPLES) continue;
    previous = target;
    open += 1;
    samples.push(
      (async () => {
        try {
          while (performance.now() - target.at < LAG_SAMPLE_TIMEOUT_MS) {
            if ((await countedEvents(apiUrl, apiKey, target.sessionId)) >= target.acknowledged) {
              lags.push(performance.now() - target.at);
              return;
            }
            await sleep(LAG_POLL_MS);
          }
          timedOut += 1;
        } finally {
          open -= 1;
        }
      })(),
    );
  }
  await Promise.all(samples);
  return { lags, timedOut };
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/** Reads the sessions until every acknowledged event and completion is counted, or the bound passes. */
async function waitForCounters(apiUrl: string, apiKey: string, ids: readonly string[]) {
  const started = performance.now();
  for (;;) {
    const stored = await storedSessions(apiUrl, apiKey, ids);
    const caughtUp = stored.every((session) => session.eventCount >= (acknowledgedEvents.get(session.id) ?? 0));
    if (caughtUp || performance.now() - started > CATCH_UP_TIMEOUT_MS)
      return { stored, waitedMs: performance.now() - started, caughtUp };
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------
// Report.
// ---------------------------------------------------------------------------

function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join("\n");
}

async function main(): Promise<number> {
  const started = Date.now();
  const { apiUrl, apiKey } = await startStack();
  const url = new URL(apiUrl);
  process.stdout.write(
    `load: ${CONNECTIONS} connections for ${SECONDS} s against ${url.origin} (local/start.ts, in-memory DynamoDB Local)\n`,
  );

  const load = Promise.resolve(
    autocannon({
      url: url.origin,
      connections: CONNECTIONS,
      duration: SECONDS,
      timeout: 10,
      requests: requestList(apiKey),
    }),
  );
  const lag = await sampleLag(apiUrl, apiKey, load);
  const result = await load;
  const inFlight = pending.size;
  await settlePending(apiUrl, apiKey);

  const listed = await listSessions(apiUrl, apiKey);
  const catchUp = await waitForCounters(apiUrl, apiKey, listed);
  const stored = catchUp.stored;
  const lags = [...lag.lags].sort((a, b) => a - b);
  const storedEvents = stored.reduce((sum, session) => sum + session.eventCount, 0);
  const ackEvents = [...acknowledgedEvents.values()].reduce((sum, value) => sum + value, 0);
  const listedSet = new Set(listed);
  const missing = [...acknowledgedSessions].filter((id) => !listedSet.has(id));
  const unexpected = listed.filter((id) => !acknowledgedSessions.has(id));
  const countMismatches = stored.filter((session) => session.eventCount !== (acknowledgedEvents.get(session.id) ?? 0));
  const statusMismatches = stored.filter(
    (session) => (session.status === "completed") !== acknowledgedCompletions.has(session.id),
  );
  const sample = stored.filter((_, index) => index % Math.max(1, Math.floor(stored.length / 25)) === 0).slice(0, 25);
  const listMismatches: string[] = [];
  for (const session of sample) {
    const ids = await listedEventIds(apiUrl, apiKey, session.id);
    const expected = acknowledgedEvents.get(session.id) ?? 0;
    if (ids.length !== expected || new Set(ids).size !== ids.length)
      listMismatches.push(
        `${session.id}: listed ${ids.length} (${new Set(ids).size} distinct), acknowledged ${expected}`,
      );
  }
  const unexpectedStatuses = [...outcomes].filter(
    ([label]) => !/^(read 200|session 201|event 201|batch 200|batch item 201|complete 200)$/.test(label),
  );

  const seconds = (result.duration || SECONDS).toFixed(1);
  process.stdout.write(
    `\n${table([
      ["requests", `${result.requests.total} in ${seconds} s (${result.requests.sent} sent)`],
      ["throughput", `${result.requests.average.toFixed(0)} req/s average, ${result.requests.max} max`],
      [
        "latency",
        `p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
      ],
      ["non-2xx", String(result.non2xx)],
      ["errors", `${result.errors} (timeouts ${result.timeouts})`],
      [
        "responses",
        [...outcomes]
          .sort()
          .map(([label, value]) => `${label}×${value}`)
          .join(", "),
      ],
      ["in flight at stop", `${inFlight} (re-sent with their Idempotency-Key: ${replayed})`],
      ["sessions", `acknowledged ${acknowledgedSessions.size}, listed ${listed.length}`],
      ["events", `acknowledged ${ackEvents}, stored (sum of eventCount) ${storedEvents}`],
      [
        "completed",
        `acknowledged ${acknowledgedCompletions.size}, stored ${stored.filter((s) => s.status === "completed").length}`,
      ],
      ["event lists", `${sample.length} sessions listed in full, ${listMismatches.length} mismatches`],
      [
        "counting lag",
        `${lags.length} samples (one per ${LAG_SAMPLE_MS} ms of load, ${MAX_OPEN_LAG_SAMPLES} at most at once): p50 ${percentile(lags, 0.5).toFixed(0)} ms, ` +
          `p95 ${percentile(lags, 0.95).toFixed(0)} ms, p99 ${percentile(lags, 0.99).toFixed(0)} ms, ` +
          `max ${(lags.at(-1) ?? Number.NaN).toFixed(0)} ms; ${lag.timedOut} over ${LAG_SAMPLE_TIMEOUT_MS / 1000} s ` +
          `(npm start's poller every ${process.env.STREAM_POLL_MS ?? 250} ms)`,
      ],
      [
        "counters caught up",
        catchUp.caughtUp
          ? `${catchUp.waitedMs.toFixed(0)} ms after the read-back began`
          : `not within ${CATCH_UP_TIMEOUT_MS / 1000} s`,
      ],
      ["total time", `${((Date.now() - started) / 1000).toFixed(1)} s`],
    ])}\n`,
  );

  const problems = [
    ...(result.non2xx > 0 ? [`${result.non2xx} non-2xx responses`] : []),
    ...(result.errors > 0 ? [`${result.errors} connection errors/timeouts`] : []),
    ...(lag.timedOut > 0 ? [`${lag.timedOut} lag samples not counted within ${LAG_SAMPLE_TIMEOUT_MS / 1000} s`] : []),
    ...unexpectedStatuses.map(([label, value]) => `unexpected ${label} ×${value}`),
    ...missing.slice(0, 5).map((id) => `acknowledged session ${id} is not listed`),
    ...unexpected.slice(0, 5).map((id) => `listed session ${id} was never acknowledged`),
    ...countMismatches
      .slice(0, 5)
      .map((s) => `session ${s.id}: eventCount ${s.eventCount}, acknowledged ${acknowledgedEvents.get(s.id) ?? 0}`),
    ...statusMismatches.slice(0, 5).map((s) => `session ${s.id}: status ${s.status} vs acknowledged completion`),
    ...listMismatches.slice(0, 5),
  ];
  if (ackEvents !== storedEvents) problems.push(`events: acknowledged ${ackEvents} ≠ stored ${storedEvents}`);
  if (problems.length > 0) {
    process.stdout.write(`\nFAILED:\n${problems.map((problem) => `  - ${problem}`).join("\n")}\n`);
    return 1;
  }
  process.stdout.write("\nOK: every acknowledged session and event is stored exactly once; no errors.\n");
  return 0;
}

const watchdog = setTimeout(() => {
  process.stderr.write(`load test exceeded ${WATCHDOG_MS / 1000} s; stopping\n`);
  void stopStack().finally(() => process.exit(2));
}, WATCHDOG_MS);
process.once("SIGINT", () => void stopStack().finally(() => process.exit(130)));
process.once("SIGTERM", () => void stopStack().finally(() => process.exit(143)));

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  process.stderr.write(`load test failed: ${error instanceof Error ? error.message : String(error)}\n`);
  if (childErrors)
    process.stderr.write(
      `local/start.ts stderr (last lines):\n${childErrors.replace(/ats_(live|test)_\w+/g, "ats_…")}\n`,
    );
} finally {
  clearTimeout(watchdog);
  await stopStack();
}
process.exit(exitCode);
