/**
 * The current committed file set of an export (issue 35; docs/export.md): for each data file key, its entry in the
 * newest committed run manifest that names it — in `files` it is present, in `removed` it is absent. A key no
 * committed manifest names is not committed yet (a run still writing, or one that failed before its manifest).
 * Pure: the manifests come from the caller (export-store.ts reads them), checked here before anything trusts them.
 */
import { isId } from "../../functions/domain/ids.js";
import type { ExportManifest, ManifestFile } from "../../functions/export/export-manifest.js";
import { EXPORT_TABLE_NAMES, type ExportTableName } from "../../functions/export/export-tables.js";

/** A data file's key as export-layout.ts builds it: nothing else is ever read (no `..`, no quotes, no other bucket path). */
const DATA_FILE_KEY =
  /^table=(sessions|events|scores|conversations)\/org=[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\/env=(?:live|test)\/day=\d{4}-\d{2}-\d{2}\/[sc]-\d{2}\.parquet$/;

export class ExportManifestError extends Error {
  override name = "ExportManifestError";
}

/** The committed data file keys of each table, sorted. */
export type CommittedFiles = Readonly<Record<ExportTableName, readonly string[]>>;

type KeyEntry = Pick<ManifestFile, "key">;

function tableOfKey(key: string): ExportTableName {
  const match = DATA_FILE_KEY.exec(key);
  const table = EXPORT_TABLE_NAMES.find((name) => name === match?.[1]);
  if (table === undefined) throw new ExportManifestError(`not an export data file key: ${JSON.stringify(key)}`);
  return table;
}

function keysOf(value: unknown, field: string, runId: string): string[] {
  if (!Array.isArray(value)) throw new ExportManifestError(`run manifest ${runId}: "${field}" is not a list`);
  return value.map((entry: unknown) => {
    const key = (entry as Partial<KeyEntry> | null)?.key;
    if (typeof key !== "string")
      throw new ExportManifestError(`run manifest ${runId}: an entry of "${field}" has no key`);
    tableOfKey(key);
    return key;
  });
}

/** The part of a run manifest the file set needs, checked: `runId` an export run id, every key a data file key. */
export interface CheckedManifest {
  readonly runId: string;
  readonly files: readonly string[];
  readonly removed: readonly string[];
}

/** Checks a parsed run manifest (JSON of unknown shape) and keeps its run id and keys. */
export function checkRunManifest(parsed: unknown, expectedRunId: string): CheckedManifest {
  const manifest = parsed as Partial<Record<keyof ExportManifest, unknown>> | null;
  if (manifest === null || typeof manifest !== "object")
    throw new ExportManifestError(`run manifest ${expectedRunId} is not a JSON object`);
  if (manifest.formatVersion !== 1)
    throw new ExportManifestError(
      `run manifest ${expectedRunId}: unknown formatVersion ${String(manifest.formatVersion)}`,
    );
  if (manifest.runId !== expectedRunId || !isId("exportRun", expectedRunId))
    throw new ExportManifestError(
      `run manifest ${expectedRunId}: runId ${JSON.stringify(manifest.runId)} does not match its key`,
    );
  return {
    runId: expectedRunId,
    files: keysOf(manifest.files, "files", expectedRunId),
    removed: keysOf(manifest.removed, "removed", expectedRunId),
  };
}

/**
 * The committed file set: the manifests applied oldest run first, so the newest run naming a key decides it. With
 * `orgId`, only that organisation's files (a copy holding one organisation's files names no other's).
 */
export function committedFiles(manifests: readonly CheckedManifest[], orgId?: string): CommittedFiles {
  const present = new Set<string>();
  const oldestFirst = [...manifests].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  for (const manifest of oldestFirst) {
    for (const key of manifest.files) present.add(key);
    for (const key of manifest.removed) present.delete(key);
  }
  const byTable: Record<ExportTableName, string[]> = { sessions: [], events: [], scores: [], conversations: [] };
  for (const key of [...present].sort()) {
    if (orgId === undefined || key.split("/")[1] === `org=${orgId}`) byTable[tableOfKey(key)].push(key);
  }
  return byTable;
}
