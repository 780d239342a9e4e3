/**
 * Rebuilds one export unit (issue 35): reads everything the unit holds (store/export/unit-reads.ts), writes one
 * Parquet file per table of the unit, each replaced whole in the export bucket when its upload completes, and
 * deletes the file of a table the unit no longer has rows of (a deletion, an erasure or TTL took them). An item
 * that is not what its tag says is left out and logged, so one bad item cannot stop the export.
 */
import { logError } from "../runtime/log.js";
import { deleteExportObject, type ObjectUpload, openObjectUpload } from "../store/export/export-bucket.js";
import { conversationsOfUnit, sessionsOfUnit } from "../store/export/unit-reads.js";
import type { Item } from "../store/table/entity.js";
import { type ExportUnit, UNIT_TABLES, unitFileKey } from "./export-layout.js";
import type { ManifestFile, RemovedFile } from "./export-manifest.js";
import { conversationRow, eventRow, scoreRow, sessionRow } from "./export-rows.js";
import type { ExportTableName } from "./export-tables.js";
import { type ExportRow, ParquetTableFile } from "./parquet-table-file.js";

export interface UnitExported {
  readonly files: ManifestFile[];
  readonly removed: RemovedFile[];
  /** Items left out because they could not be read as what they claim to be. */
  readonly skipped: number;
}

interface OpenFile {
  readonly upload: ObjectUpload;
  readonly file: ParquetTableFile;
}

export async function exportUnit(unit: ExportUnit, nowMs = Date.now()): Promise<UnitExported> {
  const tables = UNIT_TABLES[unit.kind];
  const open = new Map<ExportTableName, OpenFile>();
  for (const table of tables) {
    const upload = openObjectUpload(unitFileKey(table, unit));
    open.set(table, { upload, file: new ParquetTableFile(table, upload) });
  }
  const fileOf = (table: ExportTableName) => (open.get(table) as OpenFile).file;
  let skipped = 0;
  const rowOf = (make: () => ExportRow | undefined, item: Item): ExportRow | undefined => {
    try {
      return make();
    } catch (error) {
      skipped += 1;
      logError("export left out an item it could not read", error, { PK: String(item.PK), SK: String(item.SK) });
      return undefined;
    }
  };
  try {
    if (unit.kind === "s") {
      for await (const { session, items } of sessionsOfUnit(unit, nowMs)) {
        const sessionRowMade = rowOf(() => sessionRow(session), session);
        if (sessionRowMade === undefined) continue;
        await fileOf("sessions").add(sessionRowMade);
        for (const item of items) {
          const row =
            item.entity === "event"
              ? rowOf(() => eventRow(item, sessionRowMade), item)
              : item.entity === "score"
                ? rowOf(() => scoreRow(item), item)
                : undefined;
          if (row !== undefined) await fileOf(item.entity === "event" ? "events" : "scores").add(row);
        }
      }
    } else {
      for await (const { summary, scores } of conversationsOfUnit(unit, nowMs)) {
        const row = rowOf(() => conversationRow(summary), summary);
        if (row === undefined) continue;
        await fileOf("conversations").add(row);
        for (const item of scores) {
          const scoreRowMade = rowOf(() => scoreRow(item), item);
          if (scoreRowMade !== undefined) await fileOf("scores").add(scoreRowMade);
        }
      }
    }
  } catch (error) {
    await Promise.allSettled([...open.values()].map(({ upload }) => upload.abort()));
    throw error;
  }
  const files: ManifestFile[] = [];
  const removed: RemovedFile[] = [];
  const place = {
    orgId: unit.orgId,
    environment: unit.environment,
    day: unit.hour.slice(0, 10),
    unit: unit.kind,
    hour: unit.hour,
  };
  for (const table of tables) {
    const { upload, file } = open.get(table) as OpenFile;
    const key = unitFileKey(table, unit);
    if (file.rows === 0) {
      await upload.abort();
      await deleteExportObject(key);
      removed.push({ table, key, ...place });
      continue;
    }
    const rows = await file.finish();
    const bytes = await upload.complete();
    files.push({ table, key, rows, bytes, ...place });
  }
  return { files, removed, skipped };
}
