/**
 * Writes export buckets on disk for tests of `npm run sql` without the exporter: Parquet files of EXPORT_TABLES'
 * columns written with hyparquet-writer in the export's own schema (parquet-table-file.ts) at the layout's keys, and run manifests; either as plain files
 * (a bucket copied with `aws s3 sync`) or in s3rver's on-disk layout (`<key>._S3rver_object`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { runManifestKey } from "../../functions/export/export-layout.js";
import {
  type ExportManifest,
  MANIFEST_FORMAT_VERSION,
  type ManifestFile,
  type RemovedFile,
} from "../../functions/export/export-manifest.js";
import {
  EXPORT_SCHEMA_VERSION,
  EXPORT_TABLES,
  type ExportColumn,
  type ExportTableName,
} from "../../functions/export/export-tables.js";
import { parquetSchema } from "../../functions/export/parquet-table-file.js";

export type ExportCell = string | number | bigint | boolean | Date | null;
export type ExportRow = Readonly<Record<string, ExportCell>>;

function cell(column: ExportColumn, value: ExportCell | undefined): ExportCell {
  if (value === undefined || value === null) {
    if (!column.nullable) throw new Error(`test row lacks required column ${column.name}`);
    return null;
  }
  if (column.type === "bigint") return BigInt(value as number | bigint);
  if (column.type === "timestamp") return value instanceof Date ? value : new Date(String(value));
  return value;
}

/** A Parquet file of `table`'s columns holding `rows` (missing nullable fields are null). */
export function exportParquet(table: ExportTableName, rows: readonly ExportRow[]): Uint8Array {
  const columns = EXPORT_TABLES[table];
  const buffer = parquetWriteBuffer({
    columnData: columns.map((column) => ({
      name: column.name,
      data: rows.map((row) => cell(column, row[column.name])),
    })),
    schema: parquetSchema(table),
  });
  return new Uint8Array(buffer);
}

/** An export bucket on disk: objects written by key, plain or in s3rver's layout. */
export class ExportBucketOnDisk {
  constructor(
    readonly root: string,
    private readonly layout: "plain" | "s3rver",
  ) {}

  put(key: string, body: Uint8Array | string): void {
    const path = join(this.root, ...key.split("/")) + (this.layout === "s3rver" ? "._S3rver_object" : "");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
  }

  /** Writes a unit's file of one table and answers its manifest entry. */
  putFile(file: Omit<ManifestFile, "rows" | "bytes">, rows: readonly ExportRow[]): ManifestFile {
    const body = exportParquet(file.table, rows);
    this.put(file.key, body);
    return { ...file, rows: rows.length, bytes: body.byteLength };
  }

  /** Writes a run manifest (committing the run). */
  commit(runId: string, files: readonly ManifestFile[], removed: readonly RemovedFile[] = []): ExportManifest {
    const now = new Date().toISOString();
    const manifest: ExportManifest = {
      formatVersion: MANIFEST_FORMAT_VERSION,
      schemaVersion: EXPORT_SCHEMA_VERSION,
      runId,
      startedAt: now,
      committedAt: now,
      changesFrom: now,
      changesThrough: now,
      units: files.length,
      files,
      removed,
    };
    this.put(runManifestKey(runId), JSON.stringify(manifest));
    return manifest;
  }
}
