/**
 * Reads an organisation's part of a run's manifest (functions/export/export-manifest.ts) from its JSON, field by
 * field: only what `GET /api/exports` hands out, each checked for its type, so a damaged or foreign object in
 * the bucket can neither crash the route nor put anything unexpected in its answer.
 */
import type { ExportManifest, ManifestFile, RemovedFile } from "../../export/export-manifest.js";
import { EXPORT_TABLE_NAMES } from "../../export/export-tables.js";

/** A file's entry as handed out: the manifest's own fields (export-manifest.ts), its names as checked text. */
export type ManifestEntry = Readonly<Record<keyof Omit<RemovedFile, "orgId">, string>>;

export type ManifestFileEntry = ManifestEntry & Pick<ManifestFile, "rows" | "bytes">;

export type OrganisationRunManifest = Pick<
  ExportManifest,
  "runId" | "schemaVersion" | "startedAt" | "committedAt" | "changesFrom" | "changesThrough"
> & {
  readonly files: readonly ManifestFileEntry[];
  readonly removed: readonly ManifestEntry[];
};

const TABLES: readonly string[] = EXPORT_TABLE_NAMES;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value.slice(0, 1024) : fallback;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

function entry(value: unknown): ManifestEntry | undefined {
  const item = record(value);
  if (item === undefined || typeof item.key !== "string" || !TABLES.includes(text(item.table))) return undefined;
  return {
    table: text(item.table),
    environment: text(item.environment),
    day: text(item.day),
    hour: text(item.hour),
    unit: text(item.unit),
    key: item.key,
  };
}

function entries<T>(value: unknown, read: (item: unknown) => T | undefined): T[] {
  return Array.isArray(value) ? value.flatMap((item) => read(item) ?? []) : [];
}

/** The manifest of `runId`, or undefined when `json` is not an object naming that run. */
export function parseOrganisationManifest(json: unknown, runId: string): OrganisationRunManifest | undefined {
  const manifest = record(json);
  if (manifest === undefined || manifest.runId !== runId) return undefined;
  return {
    runId,
    schemaVersion: count(manifest.schemaVersion),
    startedAt: text(manifest.startedAt),
    committedAt: text(manifest.committedAt),
    changesFrom: text(manifest.changesFrom),
    changesThrough: text(manifest.changesThrough),
    files: entries(manifest.files, (item) => {
      const base = entry(item);
      const source = record(item);
      return base === undefined || source === undefined
        ? undefined
        : { ...base, rows: count(source.rows), bytes: count(source.bytes) };
    }),
    removed: entries(manifest.removed, entry),
  };
}
