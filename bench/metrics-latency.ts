/**
 * `npm run bench:metrics`: end-to-end latency of POST /api/sdk/metrics through the local stack (HTTP adapter,
 * handler, DynamoDB Local), next to GET /api/sdk/agents/:name/stats over the same 90 days in the same run.
 *
 * Seeds one tenant with 90 days of agent rollups — 20 agents, 50 users, 10 models, 30 tools; each agent-day a few
 * sessions of a few users with some of the tools and models (the user rollups are not written: no query timed reads
 * them, and a user's partition is read exactly as an agent's) — and 7 days of hourly series, written through the stream
 * consumer's own writers (rollup-store.ts rollupUpdates, agentSummaryUpdate, series-updates.ts seriesUpdates)
 * and its flush (rollup-flush.ts flushRollups), never hand-built keys. Then times BENCH_SAMPLES (default 200)
 * sequential requests per query, each query also bounded to BENCH_CASE_SECONDS (default 12 s; the rows say how
 * many ran). Writes bench/metrics-results.md and .json.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { startBenchDatabase } from "./bench-database.js";
import { installLogSink } from "./harness/log-sink.js";
import { measure, type Timing } from "./timing.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const CASE_SECONDS = Number(process.env.BENCH_CASE_SECONDS ?? 12);
const DAYS = 90;
const AGENTS = 20;
const USERS = 50;
const MODELS = 10;
const TOOLS = 30;
const SESSIONS_PER_AGENT_DAY = 4;
const SERIES_DAYS = 7;
const TABLE = "ats-bench-metrics";
const ORG = "bench-metrics";
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A small deterministic generator (so that every run seeds the same figures). */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}

const name = (prefix: string, index: number) => `${prefix}-${String(index).padStart(2, "0")}`;

interface Result extends Timing {
  readonly requests: number;
  readonly rows: number;
}

installLogSink();
const dynamo = await startBenchDatabase(TABLE);
try {
  const { agentSummaryUpdate, rollupUpdates } = await import("../functions/store/counting/rollup-store.js");
  const { flushRollups } = await import("../functions/store/counting/rollup-flush.js");
  const { seriesUpdates } = await import("../functions/store/counting/series-updates.js");
  const { outcomeCounters, emptyModelTally } = await import("../functions/domain/rollup.js");
  const { durationBin } = await import("../functions/domain/duration-bins.js");
  const { tenant } = await import("../functions/store/table/keys.js");
  const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");
  const { createApiKey } = await import("../functions/store/keys/api-key-store.js");
  const { routes } = await import("../functions/routes.js");
  const { startLocalApi } = await import("../local/http-adapter.js");
  const { REPOSITORY_ROOT } = await import("../local/settings.js");
  type RollupShare = import("../functions/store/counting/rollup-flush.js").RollupShare;

  await ensureOrganisation(ORG);
  const key = (await createApiKey({ orgId: ORG, environment: "live", name: "bench", scopes: ["read"] }, { name: "b" }))
    .plaintext;
  const tenantPrefix = tenant(ORG, "live");
  const nowMs = Date.now();
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const ttl = Math.floor(nowMs / 1000) + 400 * 86_400;
  const random = generator(35);

  // 90 days of sessions, each one change (its start and its end) as the stream consumer counts it.
  const seedStarted = performance.now();
  const shares: RollupShare[] = [];
  let sequence = 0;
  const share = (updates: RollupShare["updates"]) =>
    shares.push({ sequence: String(++sequence).padStart(40, "0"), appliedNow: true, updates });
  for (let dayIndex = 0; dayIndex < DAYS; dayIndex++) {
    const day = new Date(today - dayIndex * DAY_MS).toISOString().slice(0, 10);
    for (let agentIndex = 0; agentIndex < AGENTS; agentIndex++) {
      const agentName = name("agent", agentIndex);
      for (let session = 0; session < SESSIONS_PER_AGENT_DAY; session++) {
        const failed = random(10) === 0;
        const durationMs = 200 + random(60_000);
        const tools: Record<string, { calls: number; errors: number }> = {};
        for (let call = 0; call < 2; call++) {
          tools[name("tool", (Math.floor((agentIndex * 3) / 2) + random(4)) % TOOLS)] = {
            calls: 1 + random(4),
            errors: random(4) === 0 ? 1 : 0,
          };
        }
        const model = name("model", (agentIndex + random(2)) % MODELS);
        const promptTokens = 200 + random(2_000);
        const completionTokens = 50 + random(500);
        const estimatedCost = (promptTokens + 4 * completionTokens) / 1_000_000;
        const models = new Map([
          [
            model,
            {
              ...emptyModelTally(),
              calls: 1 + random(3),
              estimatedCost,
              promptTokens,
              completionTokens,
              totalTokens: promptTokens + completionTokens,
            },
          ],
        ]);
        const target = { tenant: tenantPrefix, agentName, userId: name("user", random(USERS)), day, ttl };
        const counters = {
          sessions: 1,
          ...outcomeCounters({
            status: failed ? "failed" : "completed",
            success: !failed,
            durationMs,
            eventCount: 3 + random(10),
            eventCost: estimatedCost,
            promptTokens,
            completionTokens,
            totalTokens: promptTokens + completionTokens,
          }),
        };
        share([
          // The agents' rollups only: the queries timed read no user's (a user's partition is read as an agent's).
          ...rollupUpdates(
            target,
            { counters, tools, models, ...(failed ? { failure: { reason: "tool timeout", count: 1 } } : {}) },
            ["AGENT"],
          ),
          agentSummaryUpdate(tenantPrefix, agentName, 1, ttl),
        ]);
      }
    }
  }
  // 7 days of hourly series (and the 5-minute buckets of their last 2 days), per agent and for all agents.
  for (let hour = Math.floor(nowMs / HOUR_MS) * HOUR_MS - SERIES_DAYS * DAY_MS; hour <= nowMs; hour += HOUR_MS) {
    for (let agentIndex = 0; agentIndex < AGENTS; agentIndex++) {
      const started = random(3);
      if (started === 0) continue;
      const counters = {
        started,
        ended: started,
        failed: random(4) === 0 ? 1 : 0,
        cost: started * 0.002,
        tokens: started * 900,
      };
      const bins = new Map([[durationBin(500 + random(30_000)), started]]);
      share(
        seriesUpdates(
          tenantPrefix,
          name("agent", agentIndex),
          [{ atMs: hour + random(60) * 60_000, facet: { kind: "none" }, counters, bins }],
          nowMs,
        ),
      );
    }
  }
  const itemsWritten = await flushRollups("bench-shard", shares);
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const api = await startLocalApi({ routes, root: REPOSITORY_ROOT });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const fromDay = new Date(today - (DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const toDay = new Date(today).toISOString().slice(0, 10);
  let lastRows = 0;
  const request = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    const parsed = JSON.parse(text) as { rows?: unknown[]; days?: unknown[] };
    lastRows = (parsed.rows ?? parsed.days ?? []).length;
  };
  /** Timed requests of one query: BENCH_SAMPLES of them, or as many as CASE_SECONDS allow (at least 20). */
  async function timed(label: string, operation: () => Promise<void>): Promise<Result> {
    await operation();
    // The second request's time (the first pays the handler's cold start) sizes the sample.
    const started = performance.now();
    await operation();
    const oneMs = performance.now() - started;
    const samples = Math.max(20, Math.min(SAMPLES, Math.floor((CASE_SECONDS * 1000) / Math.max(oneMs, 1))));
    const timing = await measure(label, operation, { samples, warmUp: 3 });
    return { ...timing, requests: samples, rows: lastRows };
  }
  const metrics = (body: Record<string, unknown>) => () =>
    request("POST", "/api/sdk/metrics", { limit: 1000, ...body });
  const day90 = { from: fromDay, to: toDay };
  const results: Result[] = [
    await timed(
      "metrics: 90 days by day, tenant total (sessions, failed, eventCost, durationP95)",
      metrics({ ...day90, measures: ["sessions", "failed", "eventCost", "durationP95"] }),
    ),
    await timed(
      "metrics: 90 days by day × agent (the same measures; the first page, 1,000 of 1,800 rows)",
      metrics({ ...day90, measures: ["sessions", "failed", "eventCost", "durationP95"], groupBy: ["agent"] }),
    ),
    await timed(
      "metrics: 7 days by hour (sessionsStarted, sessionsEndedFailed, endedDurationP95)",
      metrics({
        granularity: "hour",
        from: new Date(nowMs - (SERIES_DAYS * 24 - 1) * HOUR_MS).toISOString(),
        to: new Date(nowMs).toISOString(),
        measures: ["sessionsStarted", "sessionsEndedFailed", "endedDurationP95"],
      }),
    ),
    await timed(
      "metrics: 30 days total by model (modelCalls, modelCost, modelTotalTokens)",
      metrics({
        from: new Date(today - 29 * DAY_MS).toISOString().slice(0, 10),
        to: toDay,
        granularity: "total",
        measures: ["modelCalls", "modelCost", "modelTotalTokens"],
        groupBy: ["model"],
      }),
    ),
    await timed(
      "metrics: 30 days total by tool (toolCalls, toolErrors)",
      metrics({
        from: new Date(today - 29 * DAY_MS).toISOString().slice(0, 10),
        to: toDay,
        granularity: "total",
        measures: ["toolCalls", "toolErrors"],
        groupBy: ["tool"],
      }),
    ),
    await timed("GET /api/sdk/agents/:name/stats, 90 days (one agent)", () =>
      request("GET", `/api/sdk/agents/agent-00/stats?from=${fromDay}&to=${toDay}`),
    ),
    await timed(
      "metrics: 90 days by day, one agent (the stats route's reads)",
      metrics({
        ...day90,
        measures: ["sessions", "failed", "eventCost", "durationP95"],
        filters: { agent: ["agent-00"] },
      }),
    ),
  ];
  await api.close();

  const setting =
    `One tenant: ${DAYS} days × ${AGENTS} agents × ${SESSIONS_PER_AGENT_DAY} sessions a day (${USERS} users, ` +
    `${MODELS} models, ${TOOLS} tools), ${SERIES_DAYS} days of hourly series; ${itemsWritten} rollup and series ` +
    `items written through the stream consumer's flush in ${seedSeconds.toFixed(1)} s. Sequential requests through ` +
    "the local HTTP adapter on DynamoDB Local (in memory), on the bench machine (2 cores shared; load average " +
    `${loadavg()
      .map((load) => load.toFixed(1))
      .join(" / ")} at the end of the run).`;
  const lines = [
    "# POST /api/sdk/metrics latency (`npm run bench:metrics`)",
    "",
    `Run ${new Date(nowMs).toISOString()}. ${setting}`,
    "",
    "| query | requests | rows | p50 ms | p95 ms |",
    "|---|---:|---:|---:|---:|",
    ...results.map(
      (result) =>
        `| ${result.label} | ${result.requests} | ${result.rows} | ${result.p50.toFixed(1)} | ${result.p95.toFixed(1)} |`,
    ),
    "",
    "A query that names no agent reads the agent summary and then each agent's partition over the period (8 at a " +
      "time): its time grows with agents × days, as GET /api/sdk/agents?from=… does. DynamoDB Local is far slower " +
      "per item than DynamoDB, so these figures are an upper bound on the work's shape, not AWS latencies.",
    "",
  ];
  writeFileSync(new URL("metrics-results.md", import.meta.url), lines.join("\n"));
  writeFileSync(
    new URL("metrics-results.json", import.meta.url),
    `${JSON.stringify({ ranAt: new Date(nowMs).toISOString(), setting, itemsWritten, seedSeconds, results }, null, 2)}\n`,
  );
  console.log(lines.join("\n"));
} finally {
  await dynamo.stop();
}
