/**
 * Measures the DynamoDB work of the service's document client: every command
 * (a client middleware at the initialize step, like
 * test/support/dynamo-call-counter.ts), every HTTP attempt (a middleware
 * inside the SDK's retry loop, so a retried command counts each round trip),
 * and — while capacity metering is on — the consumed capacity.
 *
 * The service never sets `ReturnConsumedCapacity`; the meter sets it on every
 * data-plane command's input. It asks for `INDEXES` rather than `TOTAL`:
 * `INDEXES` returns the same total (`CapacityUnits`) plus the table / index
 * split.
 *
 * For `TransactWriteItems` DynamoDB Local's figure is not usable (see
 * capacity-model.ts), so with capacity metering on the meter also reads the
 * images of the transaction's items before and after it (consistent
 * BatchGetItem, not counted, not timed: the metered pass is separate from
 * the timed one) and computes what AWS would bill from them. With
 * `transactionImages: "deferred"` it reads nothing around a transaction (so
 * the work it meters is not slowed down, e.g. the stream consumer under load)
 * and records the transaction's targets instead, to be costed later from the
 * items' final images (see `modelDeferredTransactions`).
 */
import type { ConsumedCapacity } from "@aws-sdk/client-dynamodb";
import { BatchGetCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type Image, type TransactAction, type TransactItemImages, transactionWriteUnits } from "./capacity-model.js";

const READ_COMMANDS = new Set(["GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"]);
const WRITE_COMMANDS = new Set(["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"]);

/** What a command touched, from its key: the per-request overheads apart from the route's own work. */
export type CommandPurpose = "keyLookup" | "keyLastUsed" | "rateLimit" | "route";

export interface CommandRecord {
  /** DynamoDB operation name, e.g. `TransactWriteItems`. */
  readonly command: string;
  readonly purpose: CommandPurpose;
  /** HTTP round trips (1 unless the SDK retried). */
  readonly attempts: number;
  readonly succeeded: boolean;
  readonly kind: "read" | "write" | "other";
  /** Items in a transaction or batch. */
  readonly items: number;
  /** Units DynamoDB (Local) reported for the table; undefined when capacity was not requested or not returned. */
  readonly tableUnits: number | undefined;
  /** Units DynamoDB (Local) reported for the indexes. */
  readonly indexUnits: number | undefined;
  /** For `TransactWriteItems`: the units AWS would bill, from the items' images. */
  readonly modelled: { readonly table: number; readonly indexes: number } | undefined;
  /** The command carried a `ConditionExpression`. */
  readonly conditional: boolean;
  /** The partition key the command addressed (`Key.PK`, or a transaction's first item's), if one. */
  readonly partition: string | undefined;
  /** With deferred transaction images: a transaction's items, to be costed later. */
  readonly targets: readonly TransactTarget[] | undefined;
}

export interface DynamoMeter {
  /**
   * Starts recording; with `capacity`, also measures the capacity of every command (transactions: from
   * images read around each one, or with `transactionImages: "deferred"` from images read later).
   */
  start(options: { readonly capacity: boolean; readonly transactionImages?: "around" | "deferred" }): void;
  /** Returns (and forgets) what was recorded since `start` or the previous `drain`. */
  drain(): CommandRecord[];
  /** Stops recording (the middlewares stay installed but do nothing). */
  stop(): void;
}

interface InFlight {
  attempts: number;
}

export interface TransactTarget {
  readonly action: TransactAction;
  readonly table: string;
  readonly key: Image;
  /** The item a Put writes. */
  readonly item: Image | undefined;
}

function operationName(commandName: unknown): string {
  return String(commandName).replace(/Command$/, "");
}

function purposeOf(input: unknown): CommandPurpose {
  if (typeof input !== "object" || input === null || !("Key" in input)) return "route";
  const key = (input as { Key?: unknown }).Key;
  if (typeof key !== "object" || key === null) return "route";
  const { PK, SK } = key as { PK?: unknown; SK?: unknown };
  const pk = typeof PK === "string" ? PK : "";
  const sk = typeof SK === "string" ? SK : "";
  if (pk.startsWith("RATELIMIT#")) return "rateLimit";
  if (pk.startsWith("APIKEY#")) return "keyLookup";
  if (pk.startsWith("ORG#") && sk.startsWith("APIKEY#")) return "keyLastUsed";
  return "route";
}

function partitionOf(command: string, input: unknown, targets: readonly TransactTarget[]): string | undefined {
  if (command === "TransactWriteItems") {
    const pk = targets[0]?.key.PK;
    return typeof pk === "string" ? pk : undefined;
  }
  if (typeof input !== "object" || input === null) return undefined;
  const { Key, Item } = input as { Key?: Image; Item?: Image };
  const pk = (Key ?? Item)?.PK;
  return typeof pk === "string" ? pk : undefined;
}

function isConditional(command: string, input: unknown): boolean {
  if (typeof input !== "object" || input === null) return false;
  if (command === "TransactWriteItems") {
    const items = (input as { TransactItems?: Record<string, { ConditionExpression?: string }>[] }).TransactItems;
    return (items ?? []).some((entry) => Object.values(entry).some((operation) => operation?.ConditionExpression));
  }
  return typeof (input as { ConditionExpression?: unknown }).ConditionExpression === "string";
}

function itemCount(command: string, input: unknown): number {
  if (typeof input !== "object" || input === null) return 1;
  if (command === "TransactWriteItems" || command === "TransactGetItems")
    return ((input as { TransactItems?: unknown[] }).TransactItems ?? []).length;
  if (command === "BatchWriteItem" || command === "BatchGetItem") {
    const requests = (input as { RequestItems?: Record<string, unknown> }).RequestItems ?? {};
    return Object.values(requests).reduce<number>(
      (sum, entry) => sum + (Array.isArray(entry) ? entry.length : ((entry as { Keys?: unknown[] }).Keys ?? []).length),
      0,
    );
  }
  return 1;
}

/** The items of a (document-level, unmarshalled) TransactWriteItems input. */
function transactTargets(input: unknown): TransactTarget[] {
  const items = (input as { TransactItems?: Record<string, { TableName?: string; Key?: Image; Item?: Image }>[] })
    .TransactItems;
  const targets: TransactTarget[] = [];
  for (const entry of items ?? []) {
    for (const action of ["Put", "Update", "Delete", "ConditionCheck"] as const) {
      const operation = entry[action];
      if (operation === undefined) continue;
      const item = operation.Item;
      const key = operation.Key ?? (item === undefined ? {} : { PK: item.PK, SK: item.SK });
      targets.push({ action, table: String(operation.TableName), key, item });
    }
  }
  return targets;
}

const keyString = (table: string, key: Image) => JSON.stringify([table, key.PK, key.SK]);

function splitCapacity(entry: ConsumedCapacity): { table: number; indexes: number } {
  const total = entry.CapacityUnits ?? 0;
  let indexes = 0;
  for (const detail of Object.values(entry.GlobalSecondaryIndexes ?? {})) indexes += detail.CapacityUnits ?? 0;
  for (const detail of Object.values(entry.LocalSecondaryIndexes ?? {})) indexes += detail.CapacityUnits ?? 0;
  const table = entry.Table?.CapacityUnits ?? Math.max(0, total - indexes);
  return { table, indexes };
}

/** The meter of each client it was installed on: a second install answers the first (a middleware name is unique). */
const installedMeters = new WeakMap<DynamoDBDocumentClient, DynamoMeter>();

/** Installs the meter's middlewares on `client`, once per client (`npm run bench`'s sections share the service's). */
export function installMeter(client: DynamoDBDocumentClient): DynamoMeter {
  const installed = installedMeters.get(client);
  if (installed !== undefined) return installed;
  let recording = false;
  let capacity = false;
  let deferred = false;
  /** > 0 while the meter itself reads images: those reads are not the service's work. */
  let ownReads = 0;
  let records: CommandRecord[] = [];
  const inFlight = new WeakMap<object, InFlight>();

  /** Current images of `targets`' keys (consistent BatchGetItem, 100 keys per call). */
  async function readImages(targets: readonly TransactTarget[]): Promise<Map<string, Image>> {
    const images = new Map<string, Image>();
    const byTable = new Map<string, Map<string, Image>>();
    for (const target of targets) {
      const keys = byTable.get(target.table) ?? new Map<string, Image>();
      keys.set(keyString(target.table, target.key), target.key);
      byTable.set(target.table, keys);
    }
    ownReads += 1;
    try {
      for (const [table, keys] of byTable) {
        const all = [...keys.values()];
        for (let start = 0; start < all.length; start += 100) {
          let pending: Image[] | undefined = all.slice(start, start + 100);
          while (pending !== undefined && pending.length > 0) {
            const page: BatchGetCommandOutput = await client.send(
              new BatchGetCommand({ RequestItems: { [table]: { Keys: [...pending], ConsistentRead: true } } }),
            );
            for (const item of page.Responses?.[table] ?? []) images.set(keyString(table, item), item);
            pending = page.UnprocessedKeys?.[table]?.Keys;
          }
        }
      }
    } finally {
      ownReads -= 1;
    }
    return images;
  }

  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!recording || ownReads > 0) return next(args);
      const command = operationName(context.commandName);
      const kind = READ_COMMANDS.has(command) ? "read" : WRITE_COMMANDS.has(command) ? "write" : "other";
      const askCapacity = capacity && kind !== "other";
      const targets = command === "TransactWriteItems" ? transactTargets(args.input) : [];
      const before = askCapacity && !deferred && targets.length > 0 ? await readImages(targets) : undefined;
      if (askCapacity) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = "INDEXES";
      const flight: InFlight = { attempts: 0 };
      inFlight.set(context, flight);
      const base = {
        command,
        purpose: purposeOf(args.input),
        kind,
        items: itemCount(command, args.input),
        conditional: isConditional(command, args.input),
        partition: partitionOf(command, args.input, targets),
        targets: askCapacity && deferred && targets.length > 0 ? targets : undefined,
      } as const;
      try {
        const result = await next(args);
        const reported = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
          .ConsumedCapacity;
        const entries = reported === undefined ? [] : Array.isArray(reported) ? reported : [reported];
        let tableUnits: number | undefined;
        let indexUnits: number | undefined;
        if (askCapacity && entries.length > 0) {
          tableUnits = 0;
          indexUnits = 0;
          for (const entry of entries) {
            const split = splitCapacity(entry);
            tableUnits += split.table;
            indexUnits += split.indexes;
          }
        }
        let modelled: CommandRecord["modelled"];
        if (before !== undefined) {
          const after = await readImages(targets.filter((target) => target.action === "Update"));
          const images: TransactItemImages[] = targets.map((target) => {
            const id = keyString(target.table, target.key);
            return {
              action: target.action,
              before: before.get(id),
              after: target.action === "Put" ? target.item : target.action === "Update" ? after.get(id) : undefined,
            };
          });
          modelled = transactionWriteUnits(images);
        }
        records.push({ ...base, attempts: flight.attempts, succeeded: true, tableUnits, indexUnits, modelled });
        return result;
      } catch (error) {
        records.push({
          ...base,
          attempts: flight.attempts,
          succeeded: false,
          tableUnits: undefined,
          indexUnits: undefined,
          modelled: undefined,
        });
        throw error;
      }
    },
    { step: "initialize", name: "atsBenchCommandMeter", priority: "high" },
  );

  // In the finalizeRequest step at normal priority: inside the SDK's retry loop (retryMiddleware
  // is high priority in that step), so every HTTP attempt passes here once.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const flight = inFlight.get(context);
      if (flight !== undefined) flight.attempts += 1;
      return next(args);
    },
    { step: "finalizeRequest", priority: "normal", name: "atsBenchAttemptMeter" },
  );

  const meter: DynamoMeter = {
    start(options) {
      recording = true;
      capacity = options.capacity;
      deferred = options.transactionImages === "deferred";
      records = [];
    },
    drain() {
      const drained = records;
      records = [];
      return drained;
    },
    stop() {
      recording = false;
      capacity = false;
      deferred = false;
    },
  };
  installedMeters.set(client, meter);
  return meter;
}

/**
 * Costs transactions recorded with deferred images from the items' images as they are now (read with
 * consistent BatchGetItem; call with the meter stopped). For items that only grow (counters, rollups)
 * the final image is at least as large as any earlier one, so the figure is an upper bound.
 */
export async function modelDeferredTransactions(
  client: DynamoDBDocumentClient,
  records: readonly CommandRecord[],
): Promise<CommandRecord[]> {
  const byTable = new Map<string, Map<string, Image>>();
  for (const record of records) {
    for (const target of record.targets ?? []) {
      const keys = byTable.get(target.table) ?? new Map<string, Image>();
      keys.set(keyString(target.table, target.key), target.key);
      byTable.set(target.table, keys);
    }
  }
  const images = new Map<string, Image>();
  for (const [table, keys] of byTable) {
    const all = [...keys.values()];
    for (let start = 0; start < all.length; start += 100) {
      let pending: Image[] | undefined = all.slice(start, start + 100);
      while (pending !== undefined && pending.length > 0) {
        const page: BatchGetCommandOutput = await client.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: [...pending], ConsistentRead: true } } }),
        );
        for (const item of page.Responses?.[table] ?? []) images.set(keyString(table, item), item);
        pending = page.UnprocessedKeys?.[table]?.Keys;
      }
    }
  }
  return records.map((record) => {
    if (record.targets === undefined || !record.succeeded) return record;
    const items: TransactItemImages[] = record.targets.map((target) => {
      const now = images.get(keyString(target.table, target.key));
      return target.action === "Put"
        ? { action: "Put", before: undefined, after: target.item }
        : { action: target.action, before: now, after: target.action === "Update" ? now : undefined };
    });
    return { ...record, modelled: transactionWriteUnits(items) };
  });
}

/** Units AWS would bill for a recorded command: the image-based figure for transactions, else what DynamoDB reported. */
export function billedUnits(record: CommandRecord): number {
  if (record.modelled !== undefined) return record.modelled.table + record.modelled.indexes;
  return (record.tableUnits ?? 0) + (record.indexUnits ?? 0);
}
