/**
 * `GET /api/exports` (issue 35): an organisation's committed export runs, newest first, each with that
 * organisation's files and a presigned GET URL per file. The organisation's part of a run's manifest
 * (`manifests/org=<orgId>/runs/<runId>.json`) lists its files; the run counts only once its run manifest
 * exists (committed-runs.ts). Every key handed out is checked to be the caller's (organisation-export-keys.ts);
 * a file the manifest names outside the organisation is left out and logged, never presigned.
 *
 * Paging: at most `limit` runs and {@link EXPORT_PAGE_ENTRIES} files (and removed files) per page; a run with
 * more continues on the next page (`filesFrom`). The cursor is signed with the deployment's cursor secret and
 * scoped to the organisation (cursor-signing.ts): a forged one, or one of another organisation, is a 400.
 */
import { ValidationError } from "../../domain/errors.js";
import { isId } from "../../domain/ids.js";
import { organisationManifestKey } from "../../export/export-layout.js";
import { cursorScope, decodeCursor, encodeCursor } from "../table/cursor-signing.js";
import { findCommittedRuns, isSearchBound, NEWEST_BOUND, type SearchBound } from "./committed-runs.js";
import { presignedDownloadUrl, readJsonObject } from "./export-bucket-reads.js";
import { isOrganisationExportKey, organisationExportKey } from "./organisation-export-keys.js";
import { type OrganisationRunManifest, parseOrganisationManifest } from "./organisation-manifest.js";

/** Files and removed files one page holds at most (a presigned URL is about 1.5 KB: the page stays under 1 MB). */
export const EXPORT_PAGE_ENTRIES = 500;

export interface ExportFileDownload {
  readonly table: string;
  readonly environment: string;
  readonly day: string;
  readonly hour: string;
  readonly unit: string;
  readonly key: string;
  readonly rows: number;
  readonly bytes: number;
  /** A presigned GET URL, valid 15 minutes. */
  readonly url: string;
}

export interface RemovedExportFile {
  readonly table: string;
  readonly environment: string;
  readonly day: string;
  readonly hour: string;
  readonly unit: string;
  readonly key: string;
}

export interface ExportRunDownload {
  readonly runId: string;
  readonly schemaVersion: number;
  readonly startedAt: string;
  readonly committedAt: string;
  readonly changesFrom: string;
  readonly changesThrough: string;
  /** The organisation's part of the run's manifest, presigned. */
  readonly manifestUrl: string;
  /** How many files and removed files the run has for the organisation in all. */
  readonly fileCount: number;
  readonly removedCount: number;
  /** The position of this page's first entry in the run's files followed by its removed files (0: the start). */
  readonly filesFrom: number;
  readonly files: readonly ExportFileDownload[];
  readonly removed: readonly RemovedExportFile[];
}

export interface ExportDownloadPage {
  readonly runs: readonly ExportRunDownload[];
  readonly nextCursor: string | null;
}

/** A cursor: continue run `r` at entry `o`, or (no `r`) search for runs before the bound `b`. */
interface ExportCursor {
  readonly r?: string;
  readonly o?: number;
  readonly b?: SearchBound;
}

const INVALID_CURSOR = "Invalid cursor: pass back the nextCursor of the previous page of the same query unchanged";

function scopeOf(orgId: string): string {
  return cursorScope(["ListExports", orgId]);
}

async function readCursor(orgId: string, cursor: string): Promise<{ runId?: string; offset: number; before: string }> {
  const decoded: ExportCursor = await decodeCursor(cursor, scopeOf(orgId));
  const invalid = new ValidationError(INVALID_CURSOR, [{ path: "cursor", message: "Invalid cursor" }]);
  if (typeof decoded.r === "string") {
    const offset = decoded.o ?? 0;
    if (!isId("exportRun", decoded.r) || !Number.isSafeInteger(offset) || offset < 0) throw invalid;
    return { runId: decoded.r, offset, before: `${decoded.r}.json` };
  }
  if (typeof decoded.b !== "string" || !isSearchBound(decoded.b)) throw invalid;
  return { offset: 0, before: decoded.b };
}

/** The organisation's manifest of a run, or undefined when it is missing or not a manifest of theirs. */
async function organisationManifest(orgId: string, runId: string): Promise<OrganisationRunManifest | undefined> {
  const key = organisationExportKey(orgId, organisationManifestKey(orgId, runId));
  return parseOrganisationManifest(await readJsonObject(key), runId);
}

function warnForeign(orgId: string, runId: string, key: string): void {
  console.warn(
    JSON.stringify({
      level: "WARN",
      message: "export manifest names a file outside its organisation: left out",
      orgId,
      runId,
      key: key.slice(0, 200),
    }),
  );
}

/** One page of the organisation's entries of a run: its files (presigned) and removed files from `offset`. */
async function runPage(
  orgId: string,
  manifest: OrganisationRunManifest,
  offset: number,
  room: number,
): Promise<{ run: ExportRunDownload; next: number | undefined }> {
  const own = <T extends { readonly key: string }>(entries: readonly T[]) =>
    entries.filter((entry) => {
      const ok = isOrganisationExportKey(orgId, entry.key);
      if (!ok) warnForeign(orgId, manifest.runId, entry.key);
      return ok;
    });
  const files = own(manifest.files);
  const removed = own(manifest.removed);
  const total = files.length + removed.length;
  const end = Math.min(total, offset + room);
  const pageFiles = files.slice(Math.min(offset, files.length), Math.min(end, files.length));
  const pageRemoved = removed.slice(Math.max(0, offset - files.length), Math.max(0, end - files.length));
  const manifestKey = organisationExportKey(orgId, organisationManifestKey(orgId, manifest.runId));
  const run: ExportRunDownload = {
    runId: manifest.runId,
    schemaVersion: manifest.schemaVersion,
    startedAt: manifest.startedAt,
    committedAt: manifest.committedAt,
    changesFrom: manifest.changesFrom,
    changesThrough: manifest.changesThrough,
    manifestUrl: await presignedDownloadUrl(manifestKey),
    fileCount: files.length,
    removedCount: removed.length,
    filesFrom: offset,
    files: await Promise.all(
      pageFiles.map(async (file) => ({
        table: file.table,
        environment: file.environment,
        day: file.day,
        hour: file.hour,
        unit: file.unit,
        key: file.key,
        rows: file.rows,
        bytes: file.bytes,
        url: await presignedDownloadUrl(organisationExportKey(orgId, file.key)),
      })),
    ),
    removed: pageRemoved.map((file) => ({
      table: file.table,
      environment: file.environment,
      day: file.day,
      hour: file.hour,
      unit: file.unit,
      key: file.key,
    })),
  };
  return { run, next: end < total ? end : undefined };
}

/**
 * A page of the organisation's committed runs, newest first.
 * @throws ValidationError (400) for a cursor that is not one this route gave the organisation.
 */
export async function listOrganisationExports(
  orgId: string,
  options: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<ExportDownloadPage> {
  const start =
    options.cursor === undefined ? { offset: 0, before: NEWEST_BOUND } : await readCursor(orgId, options.cursor);
  const wanted = start.runId === undefined ? options.limit + 1 : options.limit;
  const search = await findCommittedRuns(orgId, wanted, start.before);
  const runIds = start.runId === undefined ? [...search.runIds] : [start.runId, ...search.runIds];

  const runs: ExportRunDownload[] = [];
  let room = EXPORT_PAGE_ENTRIES;
  for (const [index, runId] of runIds.entries()) {
    if (index === options.limit) {
      return { runs, nextCursor: await encodeCursor({ r: runId, o: 0 }, scopeOf(orgId)) };
    }
    const manifest = await organisationManifest(orgId, runId);
    if (manifest === undefined) continue;
    const offset = index === 0 ? start.offset : 0;
    const { run, next } = await runPage(orgId, manifest, offset, room);
    runs.push(run);
    room -= run.files.length + run.removed.length;
    if (next !== undefined) return { runs, nextCursor: await encodeCursor({ r: runId, o: next }, scopeOf(orgId)) };
    if (room <= 0 && index + 1 < runIds.length) {
      const following = runIds[index + 1] as string;
      return { runs, nextCursor: await encodeCursor({ r: following, o: 0 }, scopeOf(orgId)) };
    }
  }
  if (search.resumeBefore !== undefined) {
    return { runs, nextCursor: await encodeCursor({ b: search.resumeBefore }, scopeOf(orgId)) };
  }
  return { runs, nextCursor: null };
}
