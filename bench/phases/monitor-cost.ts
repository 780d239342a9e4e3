/**
 * Phase: what a monitor's evaluation costs (issue 34: ≤ $0.10 per monitor per month at one evaluation a minute).
 *
 * Over a series whose buckets are all full (every 5-minute bucket of the last 2 days and every hourly bucket of the
 * last 8 days written, each with every counter and 40 duration bins, as a busy agent leaves them), one monitor of a
 * 15-minute window and one of a 7-day window are evaluated `rounds` times each at successive minutes; the DynamoDB
 * capacity of every command is metered (bench/harness/dynamo-meter.ts: DynamoDB Local's consumed capacity; a
 * transaction's from its items' images, as AWS bills it), with the CPU time of the evaluation. Per month
 * (43,200 evaluations), on the list prices of bench/harness/cost-model.ts: the reads, the writes (a state write
 * when the window moved, every 5 minutes; no write otherwise) and Lambda's duration at 1024 MB for the CPU time
 * (the evaluator's fixed cost — one invocation a minute and the one Query of MONITORS — is shared by every
 * monitor and reported apart).
 *
 * Runs alone, with its own DynamoDB Local:
 *   node --import tsx bench/phases/monitor-cost.ts           (BENCH_MONITOR_ROUNDS, 60 evaluations per window)
 */
import { startBenchDatabase } from "../bench-database.js";
import { PRICES } from "../harness/cost-model.js";
import { billedUnits, installMeter } from "../harness/dynamo-meter.js";

const MINUTES_PER_MONTH = 43_200;
const LAMBDA_MEMORY_GB = 1;

export interface MonitorCostRow {
  readonly window: string;
  readonly windowMinutes: number;
  readonly evaluations: number;
  /** Series items one evaluation reads. */
  readonly itemsRead: number;
  /** Read request units per evaluation (eventually consistent reads). */
  readonly readUnits: number;
  /** Write request units per evaluation, averaged over the rounds (writes only when something changed). */
  readonly writeUnits: number;
  /** CPU milliseconds per evaluation (this process: the read's unmarshalling, the sums, the state machine). */
  readonly cpuMs: number;
  /** USD per monitor per month at one evaluation a minute. */
  readonly usdPerMonth: number;
}

const DURATION_BINS = 40;

function fullBucket(level: "m5" | "h1"): Record<string, number> {
  const scale = level === "m5" ? 1 : 12;
  const counters: Record<string, number> = {
    started: 40 * scale,
    ended: 40 * scale,
    failed: 3 * scale,
    errors: 9 * scale,
    cost: 1.2345 * scale,
    tokens: 480_000 * scale,
    calls: 0,
    callErrors: 0,
    scoreCount: 0,
    scoreSum: 0,
    labelCount: 0,
  };
  for (let bin = 0; bin < DURATION_BINS; bin++) counters[`b${150 + bin * 3}`] = scale;
  return counters;
}

/** Measures both windows; `ownDatabase`: starts its own DynamoDB Local (alone), else uses the bench's. */
export async function measureMonitorCost(
  rounds: number,
  options: { readonly ownDatabase: boolean } = { ownDatabase: true },
): Promise<{ rows: MonitorCostRow[]; fixed: string }> {
  const dynamo = options.ownDatabase ? await startBenchDatabase("ats-bench-monitors") : undefined;
  try {
    const { documentClient, tableName } = await import("../../functions/store/table/dynamo-client.js");
    const { BatchWriteCommand } = await import("@aws-sdk/lib-dynamodb");
    const { tenant } = await import("../../functions/store/table/keys.js");
    const { seriesItemAttributes, seriesItemKey, seriesPartitionOf } = await import(
      "../../functions/store/alerts/series-item.js"
    );
    const { ensureOrganisation } = await import("../../functions/store/members/organisation-store.js");
    const { createMonitor, getMonitor } = await import("../../functions/store/alerts/monitor-store.js");
    const { evaluateMonitor } = await import("../../functions/alerts/monitor-evaluation.js");
    const { SERIES_LEVELS } = await import("../../functions/domain/series-buckets.js");

    const orgId = "bench-monitors";
    const agent = "busy-agent";
    await ensureOrganisation(orgId);
    const partition = seriesPartitionOf(tenant(orgId, "live"), agent, { kind: "none" });
    const now = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const items: Record<string, unknown>[] = [];
    for (const level of ["m5", "h1"] as const) {
      const { sizeMs, keptMs } = SERIES_LEVELS[level];
      for (let start = now - keptMs; start < now + 3_600_000; start += sizeMs) {
        items.push({
          ...seriesItemKey(partition, level, start),
          ...seriesItemAttributes(level, start),
          ...fullBucket(level),
        });
      }
    }
    for (let index = 0; index < items.length; index += 25) {
      await documentClient.send(
        new BatchWriteCommand({
          RequestItems: { [tableName]: items.slice(index, index + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }

    const meter = installMeter(documentClient);
    const rows: MonitorCostRow[] = [];
    for (const [label, windowMinutes] of [
      ["15 minutes", 15],
      ["7 days", 10_080],
    ] as const) {
      const created = await createMonitor(
        orgId,
        "live",
        {
          name: `bench ${label}`,
          enabled: true,
          metric: "duration_p95",
          filters: { agent },
          windowMinutes,
          comparison: "above",
          alertThreshold: 60_000,
          minSessions: 10,
          noData: "keep",
          renotifyMinutes: 0,
          notifyOnRecovery: false,
          destinationIds: [],
        },
        { name: "bench" },
      );
      let readUnits = 0;
      let writeUnits = 0;
      let itemsRead = 0;
      let cpuMicros = 0;
      for (let round = 0; round < rounds; round++) {
        // Minutes of the last hour: the window moves every 5 of them, as it does once a minute in production.
        const at = new Date(now + (round % 60) * 60_000 + 30_000);
        const monitor = await getMonitor(orgId, "live", created.id);
        meter.start({ capacity: true });
        const cpu = process.cpuUsage();
        const { itemsRead: read } = await evaluateMonitor(monitor, at);
        const used = process.cpuUsage(cpu);
        const records = meter.drain();
        meter.stop();
        cpuMicros += used.user + used.system;
        itemsRead += read;
        for (const record of records) {
          if (record.kind === "read") readUnits += billedUnits(record);
          if (record.kind === "write") writeUnits += billedUnits(record);
        }
      }
      const perEvaluation = {
        readUnits: readUnits / rounds,
        writeUnits: writeUnits / rounds,
        cpuMs: cpuMicros / rounds / 1000,
      };
      const usdPerMonth =
        MINUTES_PER_MONTH *
        ((perEvaluation.readUnits * PRICES.dynamoDbPerMillionReadRequestUnits) / 1e6 +
          (perEvaluation.writeUnits * PRICES.dynamoDbPerMillionWriteRequestUnits) / 1e6 +
          (perEvaluation.cpuMs / 1000) * LAMBDA_MEMORY_GB * PRICES.lambdaArm64PerGbSecond);
      rows.push({
        window: label,
        windowMinutes,
        evaluations: rounds,
        itemsRead: itemsRead / rounds,
        ...perEvaluation,
        usdPerMonth,
      });
    }
    const fixedUsd =
      MINUTES_PER_MONTH *
      (PRICES.lambdaPerMillionRequests / 1e6 + PRICES.lambdaArm64PerGbSecond * 0.1 * LAMBDA_MEMORY_GB);
    const fixed = `The evaluator's fixed cost, shared by every monitor: one invocation a minute (${fmt(
      (MINUTES_PER_MONTH * PRICES.lambdaPerMillionRequests) / 1e6,
      4,
    )} USD a month for the requests, ${fmt(fixedUsd, 4)} USD with 100 ms of start-up each) and one Query of MONITORS a page of 100 monitors.`;
    return { rows, fixed };
  } finally {
    await dynamo?.stop();
  }
}

function fmt(value: number, digits: number): string {
  return value.toFixed(digits);
}

/** The section of bench/results.md. */
export function monitorCostMarkdown(result: {
  readonly rows: readonly MonitorCostRow[];
  readonly fixed: string;
}): string[] {
  return [
    "## 10. Monitor evaluation (issue 34)",
    "",
    "**One monitor's evaluation over full buckets** (bench/phases/monitor-cost.ts: every 5-minute bucket of 2 days and " +
      "every hourly bucket of 8 days written with every counter and 40 duration bins; `duration_p95` of one agent, " +
      "evaluated at successive minutes of an hour; capacity as AWS bills it; USD per month at one evaluation a minute, " +
      "43,200 a month, for the reads, the writes and Lambda's duration at 1024 MB for the CPU time; target ≤ $0.10):",
    "",
    monitorCostTable(result.rows),
    "",
    result.fixed,
    "",
  ];
}

/** The rows as a Markdown table, in bench/results.md's style. */
export function monitorCostTable(rows: readonly MonitorCostRow[]): string {
  return [
    "| window | evaluations | series items read | RRU per evaluation | WRU per evaluation (average) | CPU ms per evaluation | USD per monitor per month |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.window} | ${row.evaluations} | ${fmt(row.itemsRead, 0)} | ${fmt(row.readUnits, 2)} | ${fmt(row.writeUnits, 2)} | ${fmt(row.cpuMs, 2)} | ${fmt(row.usdPerMonth, 4)} |`,
    ),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = Number(process.env.BENCH_MONITOR_ROUNDS ?? 60);
  console.log(monitorCostMarkdown(await measureMonitorCost(rounds)).join("\n"));
  process.exit(0);
}
