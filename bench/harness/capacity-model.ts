/**
 * Write capacity as AWS bills it, computed from item images. Used for
 * `TransactWriteItems`, whose `ConsumedCapacity` DynamoDB Local does not
 * report usably (one, two or three small puts in a transaction all come back
 * as 2 units; see the check in the floor phase), and checked against Local's
 * reports of the same writes outside a transaction, which are right.
 *
 * The rules (DynamoDB developer guide, "Capacity units" and "transactions"):
 * - an item write costs 1 WCU per started KB of the item (for an update, the
 *   larger of the before and after images); a transactional write twice that;
 * - a keys-only index entry written or removed costs 1 WCU, 2 when the
 *   index key changes (remove + write); at the standard rate even inside a
 *   transaction; an update that changes no index key writes no index entry.
 */
import { GLOBAL_INDEXES } from "../../functions/store/table/table-definition.js";

export type Image = Readonly<Record<string, unknown>>;

/** Approximate DynamoDB item size: UTF-8 names and strings, numbers by digits, containers by their contents. */
export function itemBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value);
  if (typeof value === "number") return Math.ceil(String(Math.abs(value)).replace(/[.e+-]/g, "").length / 2) + 1;
  if (typeof value === "boolean" || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, entry) => sum + itemBytes(entry), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, entry) => sum + 1 + itemBytes(entry), 0);
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .reduce((sum, [name, entry]) => sum + Buffer.byteLength(name) + itemBytes(entry), 0);
  }
  return 0;
}

/** Standard write units of one item image (at least 1). */
export function itemWriteUnits(image: Image | undefined): number {
  return Math.max(1, Math.ceil((image === undefined ? 0 : itemBytes(image)) / 1024));
}

function indexEntry(image: Image | undefined, partitionKey: string, sortKey: string): string | undefined {
  if (image === undefined) return undefined;
  const pk = image[partitionKey];
  const sk = image[sortKey];
  return pk === undefined || sk === undefined ? undefined : JSON.stringify([pk, sk]);
}

/** Index write units of an item going from `before` to `after` (either may be absent). */
export function indexWriteUnits(before: Image | undefined, after: Image | undefined): number {
  let units = 0;
  for (const index of GLOBAL_INDEXES) {
    const old = indexEntry(before, index.partitionKey, index.sortKey);
    const next = indexEntry(after, index.partitionKey, index.sortKey);
    if (old === next) continue;
    units += old !== undefined && next !== undefined ? 2 : 1;
  }
  return units;
}

export type TransactAction = "Put" | "Update" | "Delete" | "ConditionCheck";

export interface TransactItemImages {
  readonly action: TransactAction;
  readonly before: Image | undefined;
  readonly after: Image | undefined;
}

/** Standard-rate units of one write (not doubled): table and index parts. */
export function standardWriteUnits(item: TransactItemImages): { table: number; indexes: number } {
  switch (item.action) {
    case "Put":
      return {
        table: Math.max(itemWriteUnits(item.after), item.before === undefined ? 0 : itemWriteUnits(item.before)),
        indexes: indexWriteUnits(item.before, item.after),
      };
    case "Update":
      return {
        table: Math.max(itemWriteUnits(item.before), itemWriteUnits(item.after)),
        indexes: indexWriteUnits(item.before, item.after),
      };
    case "Delete":
      return { table: itemWriteUnits(item.before), indexes: indexWriteUnits(item.before, undefined) };
    case "ConditionCheck":
      return { table: itemWriteUnits(item.before), indexes: 0 };
  }
}

/** What AWS bills for a `TransactWriteItems`: twice the table units, index units at the standard rate. */
export function transactionWriteUnits(items: readonly TransactItemImages[]): { table: number; indexes: number } {
  let table = 0;
  let indexes = 0;
  for (const item of items) {
    const units = standardWriteUnits(item);
    table += 2 * units.table;
    indexes += units.indexes;
  }
  return { table, indexes };
}
