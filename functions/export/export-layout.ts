/**
 * Where the export keeps its objects in the export bucket (issue 35; docs/export.md):
 *
 *   table=<table>/org=<orgId>/env=<environment>/day=<YYYY-MM-DD>/<unit>-<HH>.parquet
 *   manifests/runs/<runId>.json                     one per committed run, written last: the commit
 *   manifests/org=<orgId>/runs/<runId>.json         the same run's files of one organisation, written before it
 *
 * A data file holds one "unit": everything of one tenant that started in one UTC hour — `s` the sessions
 * started then (with their events and scores), `c` the conversations started then (with their own scores).
 * A unit's file is rebuilt whole and replaced by one PUT (atomic in S3): a reader sees the old file or the new
 * one, never half of one and never both. Organisation ids are slugs and environments `live`/`test`, so every
 * path segment is plain text (functions/domain/organisation.ts).
 */
import type { Environment } from "../domain/api-key.js";
import type { ExportUnit, ExportUnitKind } from "../domain/export-changes.js";
import type { ExportTableName } from "./export-tables.js";

export type { ExportUnit, ExportUnitKind };

/** The tables a unit's rows go to. */
export const UNIT_TABLES: Readonly<Record<ExportUnitKind, readonly ExportTableName[]>> = {
  s: ["sessions", "events", "scores"],
  c: ["conversations", "scores"],
};

/** The Hive-style prefix of a table's files of one tenant (ends with `/`). */
export function tenantTablePrefix(table: ExportTableName, orgId: string, environment: Environment): string {
  return `table=${table}/org=${orgId}/env=${environment}/`;
}

/** The prefix of every table's files of one organisation is `table=<table>/org=<orgId>/`. */
export function organisationTablePrefix(table: ExportTableName, orgId: string): string {
  return `table=${table}/org=${orgId}/`;
}

/** The key of a unit's file of one table. */
export function unitFileKey(table: ExportTableName, unit: ExportUnit): string {
  const day = unit.hour.slice(0, 10);
  const hh = unit.hour.slice(11, 13);
  return `${tenantTablePrefix(table, unit.orgId, unit.environment)}day=${day}/${unit.kind}-${hh}.parquet`;
}

export const RUN_MANIFEST_PREFIX = "manifests/runs/";

/** The run's manifest: written after every file of the run; its presence commits the run. */
export function runManifestKey(runId: string): string {
  return `${RUN_MANIFEST_PREFIX}${runId}.json`;
}

export function organisationManifestPrefix(orgId: string): string {
  return `manifests/org=${orgId}/runs/`;
}

/** One organisation's part of a run's manifest (the files of its partitions), written before the run's. */
export function organisationManifestKey(orgId: string, runId: string): string {
  return `${organisationManifestPrefix(orgId)}${runId}.json`;
}
