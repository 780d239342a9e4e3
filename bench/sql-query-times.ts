/**
 * Bench: the ten documented queries of docs/sql.md over an export of `BENCH_SQL_EVENTS` events (default 1,000,000),
 * in DuckDB as `npm run sql` runs them (issue 35). The files are written by the export's own Parquet writer
 * (functions/export/parquet-table-file.ts) in the export's layout — one file per table and hourly unit over 30 days,
 * 20,000 sessions of 50 events of 20 agents, 500 users, 6 tools and 3 models, a tenth of the runs failed — with a
 * committed run manifest, into a temporary directory read as a plain copy of the bucket (`npm run sql -- --dir`).
 * The rows come from a generator, not DynamoDB: the export's DynamoDB side is measured by bench/export-cost.ts.
 * Each query runs once to warm up, then `BENCH_SQL_ROUNDS` times (default 5); the median and the slowest are
 * reported. Writes bench/sql-results.json and .md.
 *
 *   npm run bench:sql
 */

import { once } from "node:events";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ExportUnit, UNIT_TABLES, unitFileKey } from "../functions/export/export-layout.js";
import type { ManifestFile } from "../functions/export/export-manifest.js";
import type { ExportTableName } from "../functions/export/export-tables.js";
import { type ExportRow, ParquetTableFile } from "../functions/export/parquet-table-file.js";
import { openExportDatabase } from "../local/sql/export-database.js";
import { plainDirectoryExportStore } from "../local/sql/export-store.js";
import { ExportBucketOnDisk } from "../test/support/export-bucket-fixture.js";
import { documentedQueries } from "../test/support/sql-doc-queries.js";

const EVENTS = Number(process.env.BENCH_SQL_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_SQL_ROUNDS ?? 5);
const EVENTS_PER_SESSION = 50;
const DAYS = 30;
const TOOLS = ["search", "fetch_page", "sql_query", "send_email", "calendar", "crm_lookup"];
const MODELS = ["gpt-4o-mini", "claude-sonnet-4-5", "gemini-2.5-flash"];

/** A file on disk fed by the writer, chunk by chunk. */
function fileSink(path: string) {
  mkdirSync(dirname(path), { recursive: true });
  const stream = createWriteStream(path);
  let bytes = 0;
  return {
    async write(chunk: Uint8Array) {
      bytes += chunk.length;
      if (!stream.write(chunk)) await once(stream, "drain");
    },
    async close(): Promise<number> {
      stream.end();
      await once(stream, "finish");
      return bytes;
    },
  };
}

/** A small deterministic generator (the same data every run). */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const directory = mkdtempSync(join(tmpdir(), "ats-bench-sql-"));
try {
  const next = random(35);
  const sessions = Math.ceil(EVENTS / EVENTS_PER_SESSION);
  const endMs = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const startMs = endMs - DAYS * 86_400_000;
  const hours = DAYS * 24;
  const writeStarted = performance.now();
  const cpuBefore = process.cpuUsage();
  const files: ManifestFile[] = [];
  let eventRows = 0;
  for (let hour = 0; hour < hours; hour++) {
    const hourMs = startMs + hour * 3_600_000;
    const unit: ExportUnit = {
      kind: "s",
      orgId: "dev",
      environment: "live",
      hour: new Date(hourMs).toISOString().slice(0, 13),
    };
    const writers = new Map<ExportTableName, { file: ParquetTableFile; sink: ReturnType<typeof fileSink> }>();
    for (const table of UNIT_TABLES.s) {
      const sink = fileSink(join(directory, ...unitFileKey(table, unit).split("/")));
      writers.set(table, { file: new ParquetTableFile(table, sink), sink });
    }
    const add = (table: ExportTableName, row: ExportRow) => writers.get(table)?.file.add(row);
    const conversationUnit: ExportUnit = { ...unit, kind: "c" };
    let conversationWriter: { file: ParquetTableFile; sink: ReturnType<typeof fileSink> } | undefined;
    const conversations = () => {
      if (conversationWriter === undefined) {
        const sink = fileSink(join(directory, ...unitFileKey("conversations", conversationUnit).split("/")));
        conversationWriter = { file: new ParquetTableFile("conversations", sink), sink };
      }
      return conversationWriter.file;
    };
    const first = Math.floor((hour * sessions) / hours);
    const last = Math.floor(((hour + 1) * sessions) / hours);
    for (let index = first; index < last; index++) {
      const sessionId = `ses_bench${String(index).padStart(8, "0")}`;
      const agent = `agent-${index % 20}`;
      const user = `user-${Math.floor(next() * 500)}`;
      const createdMs = hourMs + Math.floor(next() * 3_000_000);
      const failed = next() < 0.1;
      const model = MODELS[index % MODELS.length] as string;
      let cost = 0;
      let tokens = 0;
      const toolCalls: Record<string, number> = {};
      const toolErrors: Record<string, number> = {};
      for (let n = 0; n < EVENTS_PER_SESSION && eventRows < EVENTS; n++, eventRows++) {
        const at = new Date(createdMs + n * 2_000);
        const kind = n % 5;
        const tool = TOOLS[Math.floor(next() * TOOLS.length)] as string;
        const base = {
          event_id: `evt_${sessionId}_${n}`,
          session_id: sessionId,
          agent_name: agent,
          user_id: user,
          duration_ms: Math.floor(50 + next() ** 3 * 20_000),
          occurred_at: at,
          created_at: at,
        };
        if (kind <= 1) {
          toolCalls[tool] = (toolCalls[tool] ?? 0) + 1;
          await add("events", {
            ...base,
            event_type: "tool_call",
            tool_name: tool,
            tool_input_json: `{"q":"${sessionId}-${n}","limit":10}`,
            tool_output_json: `{"rows":${n}}`,
          });
        } else if (kind === 2 && next() < 0.08) {
          toolErrors[tool] = (toolErrors[tool] ?? 0) + 1;
          await add("events", { ...base, event_type: "error", tool_name: tool, reasoning: "timeout after 30 s" });
        } else if (kind <= 3) {
          const prompt = 500 + Math.floor(next() * 3_000);
          const completion = 50 + Math.floor(next() * 600);
          const callCost = (prompt * 0.15 + completion * 0.6) / 1_000_000;
          cost += callCost;
          tokens += prompt + completion;
          await add("events", {
            ...base,
            event_type: "llm_decision",
            model,
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: prompt + completion,
            estimated_cost: callCost,
            cost_source: "table",
            confidence: next(),
          });
        } else {
          await add("events", { ...base, event_type: "state_change", reasoning: `step ${n}` });
        }
      }
      await add("sessions", {
        session_id: sessionId,
        name: `run ${index}`,
        agent_name: agent,
        user_id: user,
        conversation_id: index % 4 < 2 ? `conv-${index - (index % 4)}` : null,
        status: failed ? "failed" : "completed",
        success: !failed,
        failure_reason: failed ? (["tool timed out", "model refused", "budget exceeded"][index % 3] ?? null) : null,
        estimated_cost: cost,
        duration_ms: EVENTS_PER_SESSION * 2_000,
        prompt_tokens: null,
        completion_tokens: null,
        total_tokens: tokens,
        model_calls: Math.floor(EVENTS_PER_SESSION / 5),
        unpriced_calls: 0,
        event_count: EVENTS_PER_SESSION,
        event_cost: cost,
        tool_calls_json: JSON.stringify(toolCalls),
        tool_errors_json: JSON.stringify(toolErrors),
        metadata_json: `{"plan":"${index % 3 === 0 ? "enterprise" : "team"}","release":"2026.${1 + (index % 11)}"}`,
        custom_metrics_json: null,
        created_at: new Date(createdMs),
        updated_at: new Date(createdMs + 100_000),
        last_activity_at: new Date(createdMs + 100_000),
        completed_at: new Date(createdMs + 100_000),
      });
      if (index % 4 === 0) {
        // A conversation of this run and the next, filed with the hour it started in (a `c` unit).
        await conversations().add({
          conversation_id: `conv-${index}`,
          agent_name: agent,
          user_id: user,
          started_at: new Date(createdMs),
          last_run_at: new Date(createdMs + 60_000),
          run_count: 2,
        });
      }
      if (index % 5 === 0) {
        await add("scores", {
          score_id: `scr_${sessionId}`,
          session_id: sessionId,
          event_id: null,
          conversation_id: null,
          agent_name: agent,
          name: "helpful",
          value_kind: "numeric",
          numeric_value: failed ? 0 : Math.round(next() * 5),
          boolean_value: null,
          categorical_value: null,
          comment: null,
          source: "evaluator",
          author_kind: "apiKey",
          author_id: "key_bench",
          created_at: new Date(createdMs),
          updated_at: new Date(createdMs),
        });
      }
    }
    if (conversationWriter !== undefined) {
      const rows = await conversationWriter.file.finish();
      const bytes = await conversationWriter.sink.close();
      const key = unitFileKey("conversations", conversationUnit);
      files.push({
        table: "conversations",
        key,
        rows,
        bytes,
        orgId: "dev",
        environment: "live",
        day: unit.hour.slice(0, 10),
        unit: "c",
        hour: unit.hour,
      });
    }
    for (const [table, { file, sink }] of writers) {
      const rows = await file.finish();
      const bytes = await sink.close();
      files.push({
        table,
        key: unitFileKey(table, unit),
        rows,
        bytes,
        orgId: "dev",
        environment: "live",
        day: unit.hour.slice(0, 10),
        unit: "s",
        hour: unit.hour,
      });
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  const writeSeconds = (performance.now() - writeStarted) / 1000;
  new ExportBucketOnDisk(directory, "plain").commit("exp_01BENCH0000000000000000000", files);

  const openStarted = performance.now();
  const database = await openExportDatabase(plainDirectoryExportStore(directory));
  const openMs = performance.now() - openStarted;
  const results = [];
  for (const query of documentedQueries()) {
    await database.query(query.sql);
    const times: number[] = [];
    let rows = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const answer = await database.query(query.sql);
      times.push(performance.now() - started);
      rows = answer.rows.length;
    }
    times.sort((a, b) => a - b);
    results.push({
      number: query.number,
      title: query.title,
      rows,
      medianMs: Math.round(times[Math.floor(times.length / 2)] ?? 0),
      maxMs: Math.round(times.at(-1) ?? 0),
    });
  }
  database.close();
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  const figures = {
    measuredAt: new Date().toISOString(),
    events: eventRows,
    sessions,
    files: files.length,
    parquetMb: Math.round((bytes / 1024 / 1024) * 10) / 10,
    write: {
      wallSeconds: Math.round(writeSeconds * 10) / 10,
      cpuSeconds: Math.round(((cpu.user + cpu.system) / 1e6) * 10) / 10,
    },
    openViewsMs: Math.round(openMs),
    rounds: ROUNDS,
    queries: results,
  };
  writeFileSync("bench/sql-results.json", `${JSON.stringify(figures, null, 2)}\n`);
  const md = [
    "# SQL bench (issue 35): the ten documented queries in DuckDB",
    "",
    `Measured ${figures.measuredAt} by \`npm run bench:sql\`: ${eventRows.toLocaleString("en")} events in ${sessions.toLocaleString("en")} sessions over ${DAYS} days, ` +
      `${files.length} files, ${figures.parquetMb} MB of Parquet written by the export's writer in ${figures.write.wallSeconds} s (${figures.write.cpuSeconds} s CPU); ` +
      `views opened in ${figures.openViewsMs} ms; each query once to warm up, then ${ROUNDS} times.`,
    "",
    "| # | Query | Rows | Median ms | Slowest ms |",
    "| --- | --- | --- | --- | --- |",
    ...results.map((row) => `| ${row.number} | ${row.title} | ${row.rows} | ${row.medianMs} | ${row.maxMs} |`),
    "",
  ].join("\n");
  writeFileSync("bench/sql-results.md", md);
  console.log(md);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
