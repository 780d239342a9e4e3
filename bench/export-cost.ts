/**
 * Bench: what the Parquet export costs (issue 35). Seeds one tenant with `BENCH_EXPORT_EVENTS` events (default
 * 1,000,000) in sessions of 50 events started over the last 24 hours — real items, made by the service's own
 * item builders and written straight to DynamoDB Local — marks the 24 units changed, and runs one export of them
 * (functions/export/export-run.ts) against DynamoDB Local and a local S3 in another process. Measured: wall time,
 * this process's CPU time and peak RSS (the exporter alone), the DynamoDB read units (DynamoDB Local's consumed
 * capacity), the S3 requests (from the files the manifest lists: one PUT under 8 MiB, else create + parts + complete;
 * plus the manifests), the bytes written; and from them, on the list prices of bench/harness/cost-model.ts, the cost
 * per million events exported. Writes bench/export-results.json and .md.
 *
 *   npm run bench:export                       (BENCH_EXPORT_EVENTS=200000 for a quicker run)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { createInterface } from "node:readline";
import { startBenchDatabase } from "./bench-database.js";
import { PRICES } from "./harness/cost-model.js";
import { billedUnits, installMeter } from "./harness/dynamo-meter.js";

const EVENTS = Number(process.env.BENCH_EXPORT_EVENTS ?? 1_000_000);
const EVENTS_PER_SESSION = 50;
const HOURS = 24;
const EXPORT_MEMORY_GB = 2;
const S3_GET_PUT_PER_THOUSAND = PRICES.s3PutPerThousandRequests;
/** S3 Standard storage, us-east-1, first 50 TB (list price as of 2026-11, not re-verified online). */
const S3_STORAGE_PER_GB_MONTH = 0.023;

async function startS3Child(): Promise<{ child: ChildProcess; environment: Record<string, string> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/export-s3-child.ts"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return { child, environment: JSON.parse(line) as Record<string, string> };
  throw new Error("the local S3 did not start");
}

function megabytes(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

const dynamo = await startBenchDatabase("ats-bench-export");
const s3 = await startS3Child();
Object.assign(process.env, s3.environment);
try {
  const { documentClient, tableName } = await import("../functions/store/table/dynamo-client.js");
  const { BatchWriteCommand } = await import("@aws-sdk/lib-dynamodb");
  const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");
  const { createSession } = await import("../functions/store/sessions/session-store.js");
  const { eventItem } = await import("../functions/store/events/event-store.js");
  const { newId } = await import("../functions/domain/ids.js");
  const { recordUnitChanges } = await import("../functions/store/export/change-markers.js");
  const { runExport } = await import("../functions/export/export-run.js");

  const orgId = "bench-export";
  await ensureOrganisation(orgId);
  const principal = {
    keyId: "key_bench",
    orgId,
    environment: "live" as const,
    scopes: [],
    retentionDays: 30,
    rollupRetentionDays: 400,
  };
  const nowMs = Date.now();
  const firstHour = Math.floor(nowMs / 3_600_000) * 3_600_000 - HOURS * 3_600_000;
  const sessions = Math.ceil(EVENTS / EVENTS_PER_SESSION);
  const ttl = Math.floor(nowMs / 1000) + 30 * 86_400;
  const seedStarted = performance.now();
  let written = 0;
  const tools = ["search", "fetch_page", "sql_query", "send_email", "calendar"];
  for (let first = 0; first < sessions; first += 40) {
    const batch = Array.from({ length: Math.min(40, sessions - first) }, (_, i) => first + i);
    await Promise.all(
      batch.map(async (index) => {
        const startedMs = firstHour + Math.floor((index / sessions) * HOURS * 3_600_000);
        const session = await createSession(
          principal,
          {
            name: `run ${index}`,
            agentName: `agent-${index % 20}`,
            userId: `user-${index % 500}`,
            startedAt: new Date(startedMs).toISOString(),
            metadata: { plan: index % 3 === 0 ? "enterprise" : "team", release: "2026.11" },
          },
          nowMs,
        );
        const items: Record<string, unknown>[] = [];
        for (let n = 0; n < EVENTS_PER_SESSION && index * EVENTS_PER_SESSION + n < EVENTS; n++) {
          const at = startedMs + n * 1_000;
          const kind = n % 4;
          const event = {
            id: newId("event", at),
            sessionId: session.id,
            orgId,
            environment: "live" as const,
            createdAt: new Date(at).toISOString(),
            occurredAt: new Date(at).toISOString(),
            durationMs: 50 + ((index * 31 + n * 17) % 2_000),
            ...(kind === 0 || kind === 1
              ? {
                  eventType: "tool_call" as const,
                  toolName: tools[(index + n) % tools.length],
                  toolInput: { query: `q-${index}-${n}`, limit: 10 },
                  toolOutput: n % 13 === 0 ? { error: "timeout after 30s" } : { rows: n, ok: true },
                }
              : kind === 2
                ? {
                    eventType: "llm_decision" as const,
                    model: index % 2 === 0 ? "gpt-4o-mini" : "claude-sonnet-4-5",
                    usage: { promptTokens: 1_200 + n, completionTokens: 180, totalTokens: 1_380 + n },
                    estimatedCost: 0.00042,
                    costSource: "table" as const,
                    reasoning: "The user asked for the quarterly numbers; the SQL tool answers that directly.",
                    confidence: 0.82,
                  }
                : { eventType: "state_change" as const, reasoning: `moved to step ${n}` }),
          };
          items.push(await eventItem(event, 30, ttl));
        }
        for (let start = 0; start < items.length; start += 25) {
          let pending = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
          while (pending.length > 0) {
            const answer = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
            pending = (answer.UnprocessedItems?.[tableName] ?? []) as typeof pending;
          }
        }
        written += items.length;
      }),
    );
    if (first % 4_000 === 0) console.error(`seeded ${written} events`);
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const units = Array.from({ length: HOURS }, (_, hour) => ({
    kind: "s" as const,
    orgId,
    environment: "live" as const,
    hour: new Date(firstHour + hour * 3_600_000).toISOString().slice(0, 13),
  }));
  await recordUnitChanges(units, nowMs);

  const meter = installMeter(documentClient);
  meter.start({ capacity: true });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const cpuBefore = process.cpuUsage();
  const wallStarted = performance.now();
  const result = await runExport({ organisations: [orgId], nowMs: Date.now() + 120_000 });
  const wallSeconds = (performance.now() - wallStarted) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  const records = meter.drain();
  meter.stop();
  if (result.status !== "committed") throw new Error(`the export did not commit: ${result.status}`);

  const { exportManifest } = await import("../test/support/export-files.js");
  const { runManifestKey } = await import("../functions/export/export-layout.js");
  const manifest = await exportManifest(runManifestKey(result.runId));
  if (manifest === undefined) throw new Error("no manifest");
  const PART = 8 * 1024 * 1024;
  const putRequests =
    manifest.files.reduce((sum, file) => sum + (file.bytes < PART ? 1 : 2 + Math.ceil(file.bytes / PART)), 0) +
    2; /* the organisation's manifest and the run's */
  const readUnits = records.filter((record) => record.kind === "read").reduce((sum, r) => sum + billedUnits(r), 0);
  const writeUnits = records.filter((record) => record.kind === "write").reduce((sum, r) => sum + billedUnits(r), 0);
  const eventsExported = manifest.files.filter((file) => file.table === "events").reduce((s, f) => s + f.rows, 0);
  const perMillion = 1_000_000 / eventsExported;
  const gbSeconds = wallSeconds * EXPORT_MEMORY_GB;
  const cost = {
    lambda: gbSeconds * PRICES.lambdaArm64PerGbSecond * perMillion,
    dynamoReads: (readUnits / 1_000_000) * PRICES.dynamoDbPerMillionReadRequestUnits * perMillion,
    dynamoWrites: (writeUnits / 1_000_000) * PRICES.dynamoDbPerMillionWriteRequestUnits * perMillion,
    s3Requests: (putRequests / 1000) * S3_GET_PUT_PER_THOUSAND * perMillion,
  };
  const total = cost.lambda + cost.dynamoReads + cost.dynamoWrites + cost.s3Requests;
  const storageGbPerMillion = (result.bytes / 1024 ** 3) * perMillion;
  const figures = {
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, memoryGb: Math.round(totalmem() / 1024 ** 3), node: process.version },
    seeded: { events: written, sessions, hours: HOURS, seconds: Math.round(seedSeconds) },
    run: {
      units: result.units,
      files: result.files,
      rows: result.rows,
      eventsExported,
      bytes: result.bytes,
      wallSeconds: Math.round(wallSeconds * 10) / 10,
      cpuSeconds: Math.round(((cpu.user + cpu.system) / 1e6) * 10) / 10,
      peakRssMb: megabytes(peakRss),
      dynamoReadUnits: Math.round(readUnits),
      dynamoWriteUnits: Math.round(writeUnits),
      dynamoCommands: records.length,
      s3PutRequests: putRequests,
    },
    perMillionEvents: {
      lambdaGbSeconds: Math.round(gbSeconds * perMillion),
      usd: Math.round(total * 10_000) / 10_000,
      usdBreakdown: Object.fromEntries(Object.entries(cost).map(([k, v]) => [k, Math.round(v * 10_000) / 10_000])),
      parquetMb: megabytes(result.bytes * perMillion),
      storageUsdPerMonth: Math.round(storageGbPerMillion * S3_STORAGE_PER_GB_MONTH * 10_000) / 10_000,
    },
    prices: { ...PRICES, s3StoragePerGbMonth: S3_STORAGE_PER_GB_MONTH, exportMemoryGb: EXPORT_MEMORY_GB },
  };
  writeFileSync("bench/export-results.json", `${JSON.stringify(figures, null, 2)}\n`);
  const md = [
    "# Export bench (issue 35)",
    "",
    `Measured ${figures.measuredAt} by \`npm run bench:export\` on ${figures.machine.cpus} cores, Node ${figures.machine.node}`,
    "(DynamoDB Local and a local S3 in other processes; CPU and RSS are the exporter's process alone).",
    "",
    `Seeded ${written.toLocaleString("en")} events in ${sessions.toLocaleString("en")} sessions over ${HOURS} hours of one tenant (${figures.seeded.seconds} s), one export run of the ${HOURS} units:`,
    "",
    "| Figure | Value |",
    "| --- | --- |",
    `| wall time | ${figures.run.wallSeconds} s |`,
    `| CPU time (exporter) | ${figures.run.cpuSeconds} s |`,
    `| peak RSS (exporter) | ${figures.run.peakRssMb} MB |`,
    `| files, rows, bytes | ${result.files}, ${result.rows.toLocaleString("en")}, ${megabytes(result.bytes)} MB |`,
    `| DynamoDB read units | ${figures.run.dynamoReadUnits.toLocaleString("en")} (strongly consistent Queries and BatchGetItem) |`,
    `| DynamoDB write units | ${figures.run.dynamoWriteUnits} (the state item) |`,
    `| S3 PUT-class requests | ${putRequests} |`,
    "",
    `**Per million events exported** (list prices, ${EXPORT_MEMORY_GB} GB Lambda billed for the wall time measured here): ` +
      `**$${figures.perMillionEvents.usd}** — Lambda ${figures.perMillionEvents.lambdaGbSeconds} GB-s $${figures.perMillionEvents.usdBreakdown.lambda}, ` +
      `DynamoDB reads $${figures.perMillionEvents.usdBreakdown.dynamoReads}, S3 requests $${figures.perMillionEvents.usdBreakdown.s3Requests}; ` +
      `${figures.perMillionEvents.parquetMb} MB of Parquet, $${figures.perMillionEvents.storageUsdPerMonth} a month to keep in S3 Standard.`,
    "",
  ].join("\n");
  writeFileSync("bench/export-results.md", md);
  console.log(md);
} finally {
  s3.child.kill("SIGTERM");
  await dynamo.stop();
}
