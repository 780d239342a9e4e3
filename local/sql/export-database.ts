/**
 * The in-memory DuckDB of `npm run sql` (issue 35): reads the export's committed run manifests from an
 * {@link ExportStore}, works out the committed file set (committed-files.ts) and creates the views `sessions`,
 * `events`, `scores`, `conversations` over those files only (export-views.ts), in UTC. Files of a run not committed
 * yet are never read; a committed file missing on disk (an export deleting it right now) is left out and named in
 * `warnings`. One query at a time, its rows bounded by `limit`.
 */
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { runManifestKey } from "../../functions/export/export-layout.js";
import { EXPORT_TABLE_NAMES, type ExportTableName } from "../../functions/export/export-tables.js";
import { type CheckedManifest, checkRunManifest, committedFiles, ExportManifestError } from "./committed-files.js";
import type { ExportStore } from "./export-store.js";
import { exportViewSql } from "./export-views.js";
import { plainValue, type SqlValue } from "./sql-values.js";

export interface QueryAnswer {
  readonly columns: readonly string[];
  /** At most `limit` rows. */
  readonly rows: readonly (readonly SqlValue[])[];
  /** More rows than `limit` were answered (those were not read). */
  readonly truncated: boolean;
}

export interface ExportDatabase {
  /** Committed runs read and files under each view. */
  readonly runs: number;
  readonly files: Readonly<Record<ExportTableName, number>>;
  /** Committed files missing on disk, left out. */
  readonly warnings: readonly string[];
  query(sql: string, options?: { readonly limit?: number }): Promise<QueryAnswer>;
  close(): void;
}

export const DEFAULT_ROW_LIMIT = 1000;

function readManifests(store: ExportStore): CheckedManifest[] {
  return store.runIds().map((runId) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(store.readText(runManifestKey(runId)));
    } catch (error) {
      throw new ExportManifestError(`run manifest ${runId} in ${store.description} could not be read`, {
        cause: error,
      });
    }
    return checkRunManifest(parsed, runId);
  });
}

async function createViews(
  connection: DuckDBConnection,
  store: ExportStore,
  manifests: readonly CheckedManifest[],
  orgId: string | undefined,
) {
  const keys = committedFiles(manifests, orgId);
  const warnings: string[] = [];
  const files = { sessions: 0, events: 0, scores: 0, conversations: 0 };
  for (const table of EXPORT_TABLE_NAMES) {
    const paths: string[] = [];
    for (const key of keys[table]) {
      const path = store.filePath(key);
      if (path === undefined) warnings.push(`committed file ${key} is missing (an export may be running): left out`);
      else paths.push(path);
    }
    files[table] = paths.length;
    await connection.run(exportViewSql(table, paths));
  }
  return { files, warnings };
}

export interface ExportDatabaseOptions {
  /** Only this organisation's files (`--org`): for a copy holding one organisation's files. */
  readonly orgId?: string;
}

/** Opens the database over the store's committed export. */
export async function openExportDatabase(
  store: ExportStore,
  options: ExportDatabaseOptions = {},
): Promise<ExportDatabase> {
  const manifests = readManifests(store);
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    const { files, warnings } = await createViews(connection, store, manifests, options.orgId);
    return {
      runs: manifests.length,
      files,
      warnings,
      async query(sql, options = {}) {
        const limit = options.limit ?? DEFAULT_ROW_LIMIT;
        const reader = await connection.streamAndReadUntil(sql, limit + 1);
        const rows = reader.getRows();
        return {
          columns: reader.columnNames(),
          rows: rows.slice(0, limit).map((row) => row.map(plainValue)),
          truncated: rows.length > limit,
        };
      },
      close() {
        connection.closeSync();
        instance.closeSync();
      },
    };
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
}
