/**
 * `npm run sql`'s views over export files on disk (local/sql/export-database.ts, export-views.ts, export-store.ts),
 * with real DuckDB over Parquet files hyparquet-writer wrote: Athena's column types and partition keys, only the
 * committed file set, s3rver's on-disk layout, empty tables, and the CLI's output and exit code.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import { organisationManifestKey, unitFileKey } from "../../functions/export/export-layout.js";
import { EXPORT_TABLE_NAMES, EXPORT_TABLES, type ExportTableName } from "../../functions/export/export-tables.js";
import { openExportDatabase } from "../../local/sql/export-database.js";
import { plainDirectoryExportStore, s3rverExportStore } from "../../local/sql/export-store.js";
import { SQL_TYPES } from "../../local/sql/export-views.js";
import { ExportBucketOnDisk, type ExportRow } from "../support/export-bucket-fixture.js";
import { documentedQueries } from "../support/sql-doc-queries.js";

const root = mkdtempSync(join(tmpdir(), "ats-sql-views-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const unit = (hour: string, orgId = "dev") => ({ kind: "s" as const, orgId, environment: "live" as const, hour });
const runId = (minute: number) => newId("exportRun", Date.UTC(2026, 10, 27, 15, minute));

const session = (id: string, hour: string, extra: Partial<Record<string, ExportRow[string]>> = {}): ExportRow => ({
  session_id: id,
  name: `run ${id}`,
  agent_name: "support-bot",
  user_id: "user-1",
  status: "completed",
  model_calls: 1,
  unpriced_calls: 0,
  event_count: 2,
  event_cost: 0.5,
  tool_calls_json: "{}",
  tool_errors_json: "{}",
  created_at: `${hour}:05:00.123Z`,
  updated_at: `${hour}:06:00.000Z`,
  last_activity_at: `${hour}:06:00.000Z`,
  ...extra,
});
const event = (id: string, sessionId: string, hour: string): ExportRow => ({
  event_id: id,
  session_id: sessionId,
  agent_name: "support-bot",
  user_id: "user-1",
  event_type: "tool_call",
  tool_name: "search",
  duration_ms: 1200,
  created_at: `${hour}:05:30.000Z`,
});

function fileEntry(table: ExportTableName, hour: string, orgId = "dev") {
  const key = unitFileKey(table, unit(hour, orgId));
  return { table, orgId, environment: "live" as const, day: hour.slice(0, 10), unit: "s" as const, hour, key };
}

/** Two committed runs and one that never committed, in the given layout. */
function writeBucket(layout: "plain" | "s3rver"): string {
  const directory = join(root, layout, layout === "s3rver" ? "ats-export-local" : "");
  const bucket = new ExportBucketOnDisk(directory, layout);
  const first = runId(1);
  const second = runId(2);
  const uncommitted = runId(3);
  bucket.commit(first, [
    bucket.putFile(fileEntry("sessions", "2026-11-27T14"), [session("a", "2026-11-27T14")]),
    bucket.putFile(fileEntry("events", "2026-11-27T14"), [event("e1", "a", "2026-11-27T14")]),
    bucket.putFile(fileEntry("sessions", "2026-11-27T13"), [session("old", "2026-11-27T13")]),
  ]);
  // The second run rewrote 13:00 (the session now failed), removed 14:00's events and added 15:00 of another org.
  bucket.commit(
    second,
    [
      bucket.putFile(fileEntry("sessions", "2026-11-27T13"), [
        session("old", "2026-11-27T13", { status: "failed", success: false, estimated_cost: 1.25 }),
      ]),
      bucket.putFile(fileEntry("sessions", "2026-11-27T15", "acme"), [session("b", "2026-11-27T15")]),
    ],
    [fileEntry("events", "2026-11-27T14")],
  );
  // A run still writing: its file and its organisation manifest, but no run manifest.
  bucket.putFile(fileEntry("sessions", "2026-11-27T16"), [session("uncommitted", "2026-11-27T16")]);
  bucket.put(organisationManifestKey("dev", uncommitted), JSON.stringify({ runId: uncommitted, files: [] }));
  return directory;
}

const plainBucket = writeBucket("plain");
writeBucket("s3rver");

describe("the views over committed files", () => {
  it("have Athena's columns and types, partition keys last as strings", async () => {
    const database = await openExportDatabase(plainDirectoryExportStore(plainBucket));
    try {
      for (const table of EXPORT_TABLE_NAMES) {
        const described = await database.query(`DESCRIBE ${table}`);
        const expected = [
          ...EXPORT_TABLES[table].map((column) => [column.name, SQL_TYPES[column.type]]),
          ["org", "VARCHAR"],
          ["env", "VARCHAR"],
          ["day", "VARCHAR"],
        ];
        expect(described.rows.map((row) => [row[0], row[1]])).toEqual(expected);
      }
    } finally {
      database.close();
    }
  });

  it("read only the committed file set: newest run wins, removed and uncommitted files left out", async () => {
    const database = await openExportDatabase(plainDirectoryExportStore(plainBucket));
    try {
      expect(database.runs).toBe(2);
      expect(database.files).toEqual({ sessions: 3, events: 0, scores: 0, conversations: 0 });
      const sessions = await database.query(
        "SELECT session_id, status, success, estimated_cost, org, env, day, created_at FROM sessions ORDER BY session_id",
      );
      expect(sessions.rows).toEqual([
        ["a", "completed", null, null, "dev", "live", "2026-11-27", "2026-11-27 14:05:00.123"],
        ["b", "completed", null, null, "acme", "live", "2026-11-27", "2026-11-27 15:05:00.123"],
        ["old", "failed", false, 1.25, "dev", "live", "2026-11-27", "2026-11-27 13:05:00.123"],
      ]);
      expect((await database.query("SELECT count(*) AS n FROM events")).rows).toEqual([[0]]);
    } finally {
      database.close();
    }
  });

  it("read s3rver's on-disk store of the local export bucket the same way", async () => {
    const database = await openExportDatabase(s3rverExportStore(join(root, "s3rver")));
    try {
      const answer = await database.query(
        "SELECT org, count(*) AS sessions, sum(model_calls) AS calls FROM sessions WHERE env = 'live' AND day = '2026-11-27' GROUP BY org ORDER BY org",
      );
      expect(answer).toEqual({
        columns: ["org", "sessions", "calls"],
        rows: [
          ["acme", 1, 1],
          ["dev", 2, 2],
        ],
        truncated: false,
      });
    } finally {
      database.close();
    }
  });

  it("answer at most `limit` rows and say so", async () => {
    const database = await openExportDatabase(plainDirectoryExportStore(plainBucket));
    try {
      const answer = await database.query("SELECT * FROM range(5000)", { limit: 3 });
      expect(answer.rows).toEqual([[0], [1], [2]]);
      expect(answer.truncated).toBe(true);
    } finally {
      database.close();
    }
  });

  it("are empty views of the same types on an export with no file, and a missing committed file is a warning", async () => {
    const directory = join(root, "empty");
    const bucket = new ExportBucketOnDisk(directory, "plain");
    bucket.commit(runId(5), [{ ...fileEntry("scores", "2026-11-27T14"), rows: 1, bytes: 10 }]);
    const database = await openExportDatabase(plainDirectoryExportStore(directory));
    try {
      expect(database.warnings).toEqual([
        `committed file ${fileEntry("scores", "2026-11-27T14").key} is missing (an export may be running): left out`,
      ]);
      const types = await database.query("DESCRIBE conversations");
      expect(types.rows.map((row) => row[1])).toEqual([
        "VARCHAR",
        "VARCHAR",
        "VARCHAR",
        "TIMESTAMP",
        "TIMESTAMP",
        "BIGINT",
        "VARCHAR",
        "VARCHAR",
        "VARCHAR",
      ]);
      const answer = await database.query(
        "SELECT agent_name, avg(numeric_value) FROM scores WHERE org = 'dev' GROUP BY agent_name",
      );
      expect(answer.rows).toEqual([]);
    } finally {
      database.close();
    }
  });
});

describe("the ten queries of docs/sql.md", () => {
  it("run on an export with no file yet and answer no rows", async () => {
    const directory = join(root, "no-files");
    new ExportBucketOnDisk(directory, "plain").commit(runId(7), []);
    const database = await openExportDatabase(plainDirectoryExportStore(directory));
    try {
      const queries = documentedQueries();
      expect(queries).toHaveLength(10);
      for (const query of queries) expect((await database.query(query.sql)).rows, query.title).toEqual([]);
    } finally {
      database.close();
    }
  });
});

describe("npm run sql (the CLI)", () => {
  const run = promisify(execFile);
  const cli = (...args: string[]) =>
    run(process.execPath, ["--import", "tsx", "local/sql-cli.ts", ...args], { encoding: "utf8", timeout: 30_000 });

  it("prints JSON lines of the committed rows", async () => {
    const { stdout } = await cli(
      "--dir",
      plainBucket,
      "--json",
      "SELECT session_id, day FROM sessions WHERE org = 'dev' ORDER BY 1",
    );
    expect(stdout).toBe('{"session_id":"a","day":"2026-11-27"}\n{"session_id":"old","day":"2026-11-27"}\n');
  });

  it("answers bad SQL with one line on stderr and exit code 2, no stack trace", async () => {
    const failure = await cli("--dir", plainBucket, "SELEC nonsense").then(
      () => undefined,
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stdout).toBe("");
    expect(failure?.stderr).toMatch(/^npm run sql: Parser Error: syntax error at or near "SELEC"\n$/);
  });

  it("says there is no export yet with exit code 2", async () => {
    const failure = await cli("--dir", join(root, "nothing-here"), "SELECT 1").then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toBe(
      `npm run sql: No export found: the directory ${join(root, "nothing-here")} does not exist (run \`npm run export\` first)\n`,
    );
  });
});
