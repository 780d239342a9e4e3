/**
 * One export run (issue 35; docs/export.md): takes the run lock, reads the units changed since the last committed
 * run (the stream consumer's markers, from three minutes before the last run's end to the end of the minute in
 * progress: a unit changed just before a run is rebuilt again by the next one, so a marker written late and a
 * session the index did not show yet are still met), rebuilds each unit's files, then
 * writes each organisation's part of the manifest and, last, the run's manifest, which commits it; then records
 * how far it reached and frees the lock. A run that fails leaves the state as it was: the next run rebuilds the same
 * units (a rebuilt file replaces the one before, so nothing is ever counted twice). A run out of time commits the
 * units it finished and leaves the rest, from the first it did not reach, to the next run.
 */
import { newId } from "../domain/ids.js";
import { logger } from "../runtime/log.js";
import { CHANGE_MARKER_DAYS, minuteOf, readUnitChanges } from "../store/export/change-markers.js";
import { putExportJson } from "../store/export/export-bucket.js";
import { acquireExportLock, commitExportState, releaseExportLock } from "../store/export/export-state.js";
import { organisationManifestKey, runManifestKey } from "./export-layout.js";
import {
  type ExportManifest,
  MANIFEST_FORMAT_VERSION,
  type ManifestFile,
  type RemovedFile,
} from "./export-manifest.js";
import { EXPORT_SCHEMA_VERSION } from "./export-tables.js";
import { exportUnit } from "./unit-export.js";

/**
 * A run reads markers up to the end of the minute in progress, and the next run reads again from this long before
 * that end: a unit changed in the last minutes before a run is rebuilt once more by the next, which covers a marker
 * written after the run read its window and a session the (eventually consistent) session index did not show yet.
 */
const OVERLAP_MS = 3 * 60_000;

export interface ExportRunOptions {
  readonly nowMs?: number;
  /** Stop starting new units after this long (the Lambda's timeout less a margin); unbounded when omitted. */
  readonly budgetMs?: number;
  /** How long the lock is held at most (a run that dies frees it then). */
  readonly leaseMs?: number;
  /**
   * Only these organisations' changes (`npm run export -- --org`; tests): such a run keeps its own state (how far it
   * reached), so it neither takes nor leaves changes of the others — the next full run rebuilds these units again.
   */
  readonly organisations?: readonly string[];
}

export type ExportRunResult =
  | { readonly status: "busy" }
  | {
      readonly status: "committed" | "unchanged";
      readonly runId: string;
      readonly changesFrom: string;
      readonly changesThrough: string;
      readonly units: number;
      /** Units changed but left for the next run (out of time). */
      readonly unitsLeft: number;
      readonly files: number;
      readonly removed: number;
      readonly rows: number;
      readonly bytes: number;
      readonly skipped: number;
    };

export async function runExport(options: ExportRunOptions = {}): Promise<ExportRunResult> {
  const started = Date.now();
  const startedMs = options.nowMs ?? started;
  /** Now, on the run's clock (a test may set where it starts). */
  const clock = () => startedMs + (Date.now() - started);
  const runId = newId("exportRun", startedMs);
  const scope = options.organisations;
  const state = await acquireExportLock(runId, startedMs, startedMs + (options.leaseMs ?? 15 * 60_000), scope);
  if (state === undefined) return { status: "busy" };
  try {
    const fromMs =
      state.changesThrough === undefined
        ? startedMs - CHANGE_MARKER_DAYS * 86_400_000
        : Date.parse(`${state.changesThrough}:00.000Z`) - OVERLAP_MS;
    const changesFrom = minuteOf(fromMs);
    let changesThrough = minuteOf(startedMs + 60_000);
    const changes = (await readUnitChanges(changesFrom, changesThrough)).filter(
      (change) => scope === undefined || scope.includes(change.unit.orgId),
    );
    const files: ManifestFile[] = [];
    const removed: RemovedFile[] = [];
    let done = 0;
    let skipped = 0;
    for (const change of changes) {
      if (options.budgetMs !== undefined && Date.now() - started > options.budgetMs) {
        // Left for the next run, from the first minute it was marked in.
        changesThrough = change.firstMinute;
        break;
      }
      const exported = await exportUnit(change.unit, clock());
      files.push(...exported.files);
      removed.push(...exported.removed);
      skipped += exported.skipped;
      done += 1;
    }
    const summary = {
      runId,
      changesFrom,
      changesThrough,
      units: done,
      unitsLeft: changes.length - done,
      files: files.length,
      removed: removed.length,
      rows: files.reduce((sum, file) => sum + file.rows, 0),
      bytes: files.reduce((sum, file) => sum + file.bytes, 0),
      skipped,
    };
    if (done === 0) {
      await commitExportState(runId, changesThrough, undefined, scope);
      return { status: "unchanged", ...summary };
    }
    const committedAt = new Date(clock()).toISOString();
    const manifest: ExportManifest = {
      formatVersion: MANIFEST_FORMAT_VERSION,
      schemaVersion: EXPORT_SCHEMA_VERSION,
      runId,
      startedAt: new Date(startedMs).toISOString(),
      committedAt,
      changesFrom,
      changesThrough,
      units: done,
      files,
      removed,
    };
    const organisations = new Set([...files, ...removed].map((file) => file.orgId));
    await Promise.all(
      [...organisations].map((orgId) =>
        putExportJson(organisationManifestKey(orgId, runId), {
          ...manifest,
          files: files.filter((file) => file.orgId === orgId),
          removed: removed.filter((file) => file.orgId === orgId),
        }),
      ),
    );
    await putExportJson(runManifestKey(runId), manifest);
    await commitExportState(runId, changesThrough, { runId, at: committedAt }, scope);
    logger.info("export run committed", summary);
    return { status: "committed", ...summary };
  } catch (error) {
    await releaseExportLock(runId, scope);
    throw error;
  }
}
