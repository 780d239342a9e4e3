/**
 * A run's manifest (issue 35): what one export run wrote and removed, and the window of changes it covers.
 * The run's manifest (`manifests/runs/<runId>.json`) is written last and commits the run; each organisation's
 * part (`manifests/org=<orgId>/runs/<runId>.json`) holds only that organisation's files and is written before
 * it, so an organisation's manifest whose run manifest is missing belongs to a run that never committed.
 */
import type { Environment } from "../domain/api-key.js";
import type { ExportUnitKind } from "./export-layout.js";
import type { ExportTableName } from "./export-tables.js";

export const MANIFEST_FORMAT_VERSION = 1;

export interface ManifestFile {
  readonly table: ExportTableName;
  readonly orgId: string;
  readonly environment: Environment;
  /** `YYYY-MM-DD`: the file's `day=` partition. */
  readonly day: string;
  readonly unit: ExportUnitKind;
  /** `YYYY-MM-DDTHH`: the unit's hour. */
  readonly hour: string;
  readonly key: string;
  readonly rows: number;
  readonly bytes: number;
}

/**
 * A table of a rebuilt unit without rows: its file, if there was one (a deletion, an erasure or TTL took its rows),
 * was deleted. Listed for every such table of the unit (the run does not look whether a file was there).
 */
export type RemovedFile = Omit<ManifestFile, "rows" | "bytes">;

export interface ExportManifest {
  readonly formatVersion: typeof MANIFEST_FORMAT_VERSION;
  /** The columns' version (functions/export/export-tables.ts). */
  readonly schemaVersion: number;
  /** `exp_` + ULID: sorts by start time. */
  readonly runId: string;
  readonly startedAt: string;
  readonly committedAt: string;
  /** Changes recorded in [changesFrom, changesThrough) are in this run's files. */
  readonly changesFrom: string;
  readonly changesThrough: string;
  /** Units the run rebuilt. */
  readonly units: number;
  readonly files: readonly ManifestFile[];
  readonly removed: readonly RemovedFile[];
}
