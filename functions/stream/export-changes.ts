/**
 * Marking the export's changes (issue 35; run by export-change-consumer.ts): the export units a batch of records
 * touched, so the next export run rebuilds exactly them (functions/export/export-run.ts). A record placed by its own
 * image costs nothing; the rest (an event, a score) cost a share of one eventually consistent BatchGetItem of the
 * batch's sessions (else their tombstones) and conversation summaries. Deletions, erasures and TTL expiry reach the
 * export this way too: their REMOVE records mark the units, which the run rebuilds without the removed items.
 */
import { distinct, type ExportUnit, type UnitLookup, unitOfStart, unitsOfChange } from "../domain/export-changes.js";
import type { ChangeRecord } from "../store/counting/stream-counting.js";
import { recordUnitChanges } from "../store/export/change-markers.js";
import { batchGetItems } from "../store/table/batch-operations.js";
import { sessionKey, sessionTombstoneKey } from "../store/table/keys.js";

function lookupKey(lookup: UnitLookup): string {
  return lookup.kind === "session" ? `s:${lookup.sessionId}` : `c:${lookup.partitionKey}`;
}

/** The units the lookups name: sessions (or their tombstones) and conversation summaries, read in batches. */
async function unitsOfLookups(lookups: readonly UnitLookup[]): Promise<ExportUnit[]> {
  const sessions = lookups.flatMap((lookup) => (lookup.kind === "session" ? [lookup.sessionId] : []));
  const conversations = lookups.flatMap((lookup) => (lookup.kind === "conversation" ? [lookup.partitionKey] : []));
  const units: (ExportUnit | undefined)[] = [];
  const found = new Set<string>();
  for (const item of await batchGetItems(
    [...sessions.map((id) => sessionKey(id)), ...conversations.map((pk) => ({ PK: pk, SK: "CONVERSATION" }))],
    { consistent: false },
  )) {
    const pk = String(item.PK);
    found.add(pk);
    units.push(
      pk.startsWith("SESSION#")
        ? unitOfStart({ kind: "session", sessionId: pk.slice("SESSION#".length) }, item)
        : unitOfStart({ kind: "conversation", partitionKey: pk }, item),
    );
  }
  const gone = sessions.filter((id) => !found.has(sessionKey(id).PK));
  if (gone.length > 0) {
    // A deleted session's items: its tombstone keeps where it was (a session that never existed marks nothing).
    for (const item of await batchGetItems(
      gone.map((id) => sessionTombstoneKey(id)),
      { consistent: false },
    )) {
      units.push(unitOfStart({ kind: "session", sessionId: "" }, item));
    }
  }
  return distinct(units);
}

function placesItself(entity: unknown): boolean {
  return entity === "session" || entity === "sessionTombstone";
}

/** The units a batch's records touched. */
export async function unitsOfRecords(records: readonly ChangeRecord[]): Promise<ExportUnit[]> {
  const units: ExportUnit[] = [];
  const lookups = new Map<string, UnitLookup>();
  for (const record of records) {
    const placed = unitsOfChange({
      partitionKey: String(record.keys.PK ?? ""),
      newImage: record.newImage,
      oldImage: record.oldImage,
    });
    units.push(...placed.units);
    if (placed.lookup !== undefined) lookups.set(lookupKey(placed.lookup), placed.lookup);
  }
  // An event or score of a session the batch also names by its own image needs no read.
  const sessionsPlaced = new Set(
    records.flatMap((record) =>
      placesItself(record.newImage?.entity) || placesItself(record.oldImage?.entity) ? [String(record.keys.PK)] : [],
    ),
  );
  const needed = [...lookups.values()].filter(
    (lookup) => lookup.kind !== "session" || !sessionsPlaced.has(sessionKey(lookup.sessionId).PK),
  );
  return distinct([...units, ...(needed.length === 0 ? [] : await unitsOfLookups(needed))]);
}

/**
 * Marks the units a batch touched. Resolves with the sequence number to deliver again from when the markers
 * could not be read or written (the batch's first record: marking is idempotent), else undefined.
 */
export async function markExportChanges(
  records: readonly ChangeRecord[],
  onFailure: (error: unknown) => void,
  nowMs = Date.now(),
): Promise<string | undefined> {
  try {
    await recordUnitChanges(await unitsOfRecords(records), nowMs);
    return undefined;
  } catch (error) {
    onFailure(error);
    return records[0]?.sequence;
  }
}
