/**
 * The export's change markers (issue 35; docs/data-model.md pattern 70): the stream consumer puts one item per
 * unit it saw changed in a minute — `EXPORT#CHANGES` / `<minute>#<unit>`, kept 8 days — and an export run reads
 * the minutes since the last committed run with one paged Query. A unit changed many times in a minute is one
 * item (the put is idempotent), so the markers cost a handful of writes per stream batch, never one per event.
 */
import type { Environment } from "../../domain/api-key.js";
import { type ExportUnit, type ExportUnitKind, unitKey } from "../../domain/export-changes.js";
import { writeAllWithRetry } from "../table/batch-operations.js";
import { EXPORT_CHANGES_PARTITION, exportChangeKey } from "../table/keys.js";
import { queryPages } from "../table/table-operations.js";

/** Markers outlive any sensible pause of the export (a run reads back at most this far: docs/export.md). */
export const CHANGE_MARKER_DAYS = 8;

/** `YYYY-MM-DDTHH:MM` of a time (UTC): the marker's minute. */
export function minuteOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/** Records that these units changed at `nowMs`. Throws when a marker could not be written. */
export async function recordUnitChanges(units: readonly ExportUnit[], nowMs = Date.now()): Promise<void> {
  if (units.length === 0) return;
  const minute = minuteOf(nowMs);
  const ttl = Math.floor(nowMs / 1000) + CHANGE_MARKER_DAYS * 86_400;
  const { unprocessed, error } = await writeAllWithRetry(
    units.map((unit) => ({
      PutRequest: {
        Item: {
          ...exportChangeKey(minute, unitKey(unit)),
          entity: "exportChange",
          kind: unit.kind,
          orgId: unit.orgId,
          environment: unit.environment,
          hour: unit.hour,
          ttl,
        },
      },
    })),
  );
  if (error !== undefined) throw error;
  if (unprocessed.length > 0) throw new Error(`${unprocessed.length} export change markers were left unwritten`);
}

export interface UnitChange {
  readonly unit: ExportUnit;
  /** The first minute in the window the unit was seen changed. */
  readonly firstMinute: string;
}

function unitOfMarker(item: Record<string, unknown>): ExportUnit | undefined {
  const { kind, orgId, environment, hour } = item;
  if ((kind !== "s" && kind !== "c") || typeof orgId !== "string" || typeof hour !== "string") return undefined;
  if (environment !== "live" && environment !== "test") return undefined;
  return { kind: kind as ExportUnitKind, orgId, environment: environment as Environment, hour };
}

/** The units changed in the minutes [fromMinute, throughMinute), each once, in the order they first changed. */
export async function readUnitChanges(fromMinute: string, throughMinute: string): Promise<UnitChange[]> {
  const changes = new Map<string, UnitChange>();
  for await (const page of queryPages({
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
    // `#` sorts before digits: "<throughMinute>#" is the first key of that minute, just past the last one wanted.
    ExpressionAttributeValues: {
      ":pk": EXPORT_CHANGES_PARTITION,
      ":from": `${fromMinute}#`,
      ":to": `${throughMinute}#`,
    },
    ProjectionExpression: "SK, kind, orgId, environment, #hour",
    ExpressionAttributeNames: { "#hour": "hour" },
    ConsistentRead: true,
  })) {
    for (const item of page.items) {
      const unit = unitOfMarker(item);
      if (unit === undefined) continue;
      const key = unitKey(unit);
      if (!changes.has(key)) changes.set(key, { unit, firstMinute: String(item.SK).slice(0, 16) });
    }
  }
  return [...changes.values()];
}
