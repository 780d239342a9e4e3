/**
 * Phase 1, the floor: raw DynamoDB calls of the event item (built by the
 * service's own `eventItem`, so it is exactly what POST /api/sdk/events
 * stores), straight from Node through the service's document client —
 * sequential, then 32 (or BENCH_CONCURRENCY) in flight:
 *
 * - the conditional PutItem (`attribute_not_exists(PK)`) POST /api/sdk/events makes;
 * - BatchWriteItem of 25 such items, and four of them (100 items) sequentially and in parallel, the latter
 *   being what POST /api/sdk/events/batch does with 100 events (event-batch-store.ts `putAll`);
 * - a consistent GetItem;
 * - the pre-issue-14 single-event write, a TransactWriteItems of the event put + a counter update, kept for
 *   the before/after comparison.
 *
 * Every write puts a fresh item (never one already stored), as the routes do.
 * Also calibrates how DynamoDB Local reports transactional capacity.
 *
 * Imported only after the service environment points at DynamoDB Local.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { AgentEvent, NewEvent } from "../../functions/domain/event.js";
import { newId } from "../../functions/domain/ids.js";
import { BATCH_WRITE_LIMIT } from "../../functions/store/events/event-batch-plan.js";
import { eventItem } from "../../functions/store/events/event-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { expiryEpochSeconds } from "../../functions/store/table/retention.js";
import { type Image, itemBytes, standardWriteUnits } from "../harness/capacity-model.js";
import type { DynamoMeter } from "../harness/dynamo-meter.js";
import { eventBody } from "../harness/operations.js";
import { type LatencySummary, pool, summarize } from "../harness/stats.js";

export interface Throughput {
  readonly inFlight: number;
  readonly operations: number;
  readonly seconds: number;
  readonly operationsPerSecond: number;
  readonly latency: LatencySummary;
}

export type FloorOperationId =
  | "conditionalPut"
  | "getItem"
  | "batchWrite25"
  | "batchWrite4x25Sequential"
  | "batchWrite4x25Parallel"
  | "keyedReadThenBatchWrite"
  | "keyedConditionalPuts"
  | "legacyEventTransaction";

export interface FloorOperation {
  readonly id: FloorOperationId;
  readonly label: string;
  /** Items one operation writes or reads (1, except the batch writes and the transaction). */
  readonly itemsPerOperation: number;
  readonly sequential: Throughput;
  readonly concurrent: Throughput;
  /** Capacity units of one such operation: as DynamoDB Local reported them, or for a transaction as AWS bills them (modelled from the item images; Local misreports transactions). */
  readonly reportedUnits: number;
  readonly unitKind: "WCU" | "RCU";
}

/** One write, as DynamoDB Local reported its capacity and as the capacity model computes it. */
export interface CapacityCheck {
  readonly write: string;
  readonly localTable: number;
  readonly localIndexes: number;
  readonly modelTable: number;
  readonly modelIndexes: number;
  readonly agrees: boolean;
}

export interface FloorResult {
  readonly operations: readonly FloorOperation[];
  /** Approximate DynamoDB size of the event item (attribute names + values). */
  readonly eventItemBytes: number;
  /** Local's standalone writes agree with the model; its transactions do not (the model is used for those). */
  readonly capacityChecks: readonly CapacityCheck[];
}

async function eventItems(count: number, sessionId: string): Promise<Record<string, unknown>[]> {
  const nowMs = Date.now();
  const input = eventBody(sessionId) as unknown as NewEvent;
  return Promise.all(
    Array.from({ length: count }, () => {
      const event: AgentEvent = {
        ...input,
        id: newId("event", nowMs),
        orgId: "bench-floor",
        environment: "live",
        createdAt: new Date(nowMs).toISOString(),
      };
      return eventItem(event, 90, expiryEpochSeconds(nowMs, 90));
    }),
  );
}

async function sequential(operation: (index: number) => Promise<unknown>, samples: number): Promise<Throughput> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let index = 0; index < samples; index++) {
    const t0 = performance.now();
    await operation(index);
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    inFlight: 1,
    operations: samples,
    seconds,
    operationsPerSecond: samples / seconds,
    latency: summarize(latencies),
  };
}

async function concurrent(
  operation: (index: number) => Promise<unknown>,
  operations: number,
  inFlight: number,
): Promise<Throughput> {
  const latencies: number[] = [];
  const started = performance.now();
  await pool(
    Array.from({ length: operations }, (_, index) => index),
    inFlight,
    async (index) => {
      const t0 = performance.now();
      await operation(index);
      latencies.push(performance.now() - t0);
    },
  );
  const seconds = (performance.now() - started) / 1000;
  return { inFlight, operations, seconds, operationsPerSecond: operations / seconds, latency: summarize(latencies) };
}

/** The floor, in two stages so each can run next to what it is compared with. */
export interface FloorBench {
  /** Warm-up, then `samples` sequential calls of each operation (of `ids` only, if given) not run yet. */
  sequential(ids?: readonly FloorOperationId[]): Promise<void>;
  /** `concurrentOperations` calls of each operation, `inFlight` at a time; then the capacity checks. */
  concurrent(): Promise<FloorResult>;
}

export async function floorBench(options: {
  readonly meter: DynamoMeter;
  readonly samples: number;
  readonly warmUp: number;
  readonly concurrentOperations: number;
  readonly inFlight: number;
  readonly log: (line: string) => void;
}): Promise<FloorBench> {
  const { samples, warmUp, concurrentOperations, inFlight } = options;
  const sessionId = newId("session");
  const chunk = BATCH_WRITE_LIMIT;

  const put = (items: () => Record<string, unknown>) => () =>
    documentClient.send(
      new PutCommand({ TableName: tableName, Item: items(), ConditionExpression: "attribute_not_exists(PK)" }),
    );
  /** One BatchWriteItem of `chunk` fresh items, unprocessed ones retried (none are, on DynamoDB Local). */
  const batchWrite = async (items: () => Record<string, unknown>) => {
    let pending = Array.from({ length: chunk }, () => ({ PutRequest: { Item: items() } }));
    while (pending.length > 0) {
      const result = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  };
  // The pre-issue-14 write of POST /api/sdk/events: the event put + its session's counter update in one
  // transaction. Counter items rotate over 256 sessions so that no two transactions in flight touch the same
  // one (which would be a transaction conflict, not a measurement).
  const legacyTransaction = (items: () => Record<string, unknown>) => (index: number) =>
    documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: items(), ConditionExpression: "attribute_not_exists(PK)" } },
          {
            Update: {
              TableName: tableName,
              Key: { PK: `FLOORCOUNTER#${sessionId}-${index % 256}`, SK: "SESSION" },
              UpdateExpression: "ADD eventCount :one, eventCost :cost SET lastActivityAt = :now",
              ExpressionAttributeValues: { ":one": 1, ":cost": 0.0021, ":now": new Date().toISOString() },
            },
          },
        ],
      }),
    );

  const kinds: {
    id: FloorOperationId;
    label: string;
    items: number;
    unitKind: "WCU" | "RCU";
    make: (items: () => Record<string, unknown>) => (index: number) => Promise<unknown>;
  }[] = [
    {
      id: "conditionalPut",
      label: "PutItem, conditional attribute_not_exists(PK) (POST /api/sdk/events' write)",
      items: 1,
      unitKind: "WCU",
      make: put,
    },
    {
      id: "getItem",
      label: "GetItem (event item, strongly consistent)",
      items: 1,
      unitKind: "RCU",
      make: () => (index) => {
        const item = written[index % written.length] as Record<string, unknown>;
        return documentClient.send(
          new GetCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK }, ConsistentRead: true }),
        );
      },
    },
    {
      id: "batchWrite25",
      label: `BatchWriteItem of ${chunk} event items`,
      items: chunk,
      unitKind: "WCU",
      make: (items) => () => batchWrite(items),
    },
    {
      id: "batchWrite4x25Sequential",
      label: `4 × BatchWriteItem of ${chunk}, one after another (100 events)`,
      items: 4 * chunk,
      unitKind: "WCU",
      make: (items) => async () => {
        for (let index = 0; index < 4; index++) await batchWrite(items);
      },
    },
    {
      id: "batchWrite4x25Parallel",
      label: `4 × BatchWriteItem of ${chunk} in parallel (100 events: POST /api/sdk/events/batch's write)`,
      items: 4 * chunk,
      unitKind: "WCU",
      make: (items) => () => Promise.all(Array.from({ length: 4 }, () => batchWrite(items))),
    },
    {
      id: "keyedReadThenBatchWrite",
      label:
        "before issue 25, 100 events with client ids: a consistent BatchGetItem of their keys (the replay check), then 4 × BatchWriteItem of 25 in parallel (units: WCU + the read's RCU)",
      items: 4 * chunk,
      unitKind: "WCU",
      make: (items) => async () => {
        const batches = Array.from({ length: 4 }, () => Array.from({ length: chunk }, () => items()));
        await documentClient.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: { Keys: batches.flat().map((item) => ({ PK: item.PK, SK: item.SK })), ConsistentRead: true },
            },
          }),
        );
        await Promise.all(
          batches.map(async (batch) => {
            let pending = batch.map((item) => ({ PutRequest: { Item: item } }));
            while (pending.length > 0) {
              const result = await documentClient.send(
                new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
              );
              pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
            }
          }),
        );
      },
    },
    {
      id: "keyedConditionalPuts",
      label:
        "100 events with client ids (issue 25): 100 conditional PutItems (ALL_OLD on failure answers a replay), 50 in flight",
      items: 4 * chunk,
      unitKind: "WCU",
      make: (items) => async () => {
        const all = Array.from({ length: 4 * chunk }, () => items());
        for (let start = 0; start < all.length; start += 50) {
          await Promise.all(
            all.slice(start, start + 50).map((item) =>
              documentClient.send(
                new PutCommand({
                  TableName: tableName,
                  Item: item,
                  ConditionExpression: "attribute_not_exists(PK)",
                  ReturnValuesOnConditionCheckFailure: "ALL_OLD",
                }),
              ),
            ),
          );
        }
      },
    },
    {
      id: "legacyEventTransaction",
      label: "before issue 14: TransactWriteItems of the event put + counter update (the old single-event write)",
      items: 2,
      unitKind: "WCU",
      make: legacyTransaction,
    },
  ];
  /** A kind's share of the sample counts: a 100-item write runs 1/100 as many times. */
  const share = (count: number, items: number) => Math.max(10, Math.round(count / items));
  const concurrentCount = (items: number) => Math.max(2 * inFlight, share(concurrentOperations, items));
  // Fresh items for every write (+ the metered one), made up front so that making them is not timed.
  const writtenPerKind = kinds.map((kind) =>
    kind.unitKind === "RCU"
      ? 0
      : (share(warmUp, kind.items) + share(samples, kind.items) + concurrentCount(kind.items) + 1) * kind.items,
  );
  const pools = await Promise.all(writtenPerKind.map((count) => eventItems(count, sessionId)));
  const written: Record<string, unknown>[] = pools[0] ?? [];
  const runs = kinds.map((kind, position) => {
    const items = pools[position] ?? [];
    let next = 0;
    return kind.make(() => {
      const item = items[next++];
      if (item === undefined) throw new Error(`floor: ${kind.label} ran out of fresh items`);
      return item;
    });
  });
  const sequentialResults = new Map<string, Throughput>();
  return {
    async sequential(ids) {
      for (const [position, kind] of kinds.entries()) {
        if (sequentialResults.has(kind.id) || (ids !== undefined && !ids.includes(kind.id))) continue;
        const run = runs[position] as (index: number) => Promise<unknown>;
        for (let index = 0; index < share(warmUp, kind.items); index++) await run(index);
        const seq = await sequential(run, share(samples, kind.items));
        sequentialResults.set(kind.id, seq);
        options.log(
          `  ${kind.label}: p50 ${seq.latency.p50.toFixed(2)} ms, ${seq.operationsPerSecond.toFixed(0)}/s sequential`,
        );
      }
    },
    async concurrent() {
      const measured: FloorOperation[] = [];
      for (const [position, kind] of kinds.entries()) {
        const run = runs[position] as (index: number) => Promise<unknown>;
        const seq = sequentialResults.get(kind.id);
        if (seq === undefined) throw new Error("floor: sequential() must run first");
        const conc = await concurrent(run, concurrentCount(kind.items), inFlight);
        options.meter.start({ capacity: true });
        await run(0);
        const records = options.meter.drain();
        options.meter.stop();
        measured.push({
          id: kind.id,
          label: kind.label,
          itemsPerOperation: kind.items,
          sequential: seq,
          concurrent: conc,
          reportedUnits: records.reduce(
            (sum, record) =>
              sum +
              (record.modelled !== undefined
                ? record.modelled.table + record.modelled.indexes
                : (record.tableUnits ?? Number.NaN) + (record.indexUnits ?? 0)),
            0,
          ),
          unitKind: kind.unitKind,
        });
        options.log(
          `  ${kind.label}: p50 ${conc.latency.p50.toFixed(2)} ms, ${conc.operationsPerSecond.toFixed(0)}/s at ${inFlight} in flight`,
        );
      }
      const capacityChecks = await checkCapacityModel(options.meter);
      return { operations: measured, eventItemBytes: itemBytes(written[0]), capacityChecks };
    },
  };
}

/** The floor operation `id` of a result (throws when missing). */
export function floorOperation(result: FloorResult, id: FloorOperationId): FloorOperation {
  const found = result.operations.find((operation) => operation.id === id);
  if (found === undefined) throw new Error(`floor result has no ${id}`);
  return found;
}

/**
 * Writes of known shape: standalone ones (Local's report against the model at
 * the standard rate) and transactions of 1–3 small puts (Local's report
 * against what AWS bills).
 */
async function checkCapacityModel(meter: DynamoMeter): Promise<CapacityCheck[]> {
  const checks: CapacityCheck[] = [];
  const base = `BENCHCHECK#${newId("session")}`;
  const indexed: Image = {
    PK: base,
    SK: "INDEXED",
    GSI1PK: `${base}#1`,
    GSI1SK: "a",
    GSI2PK: `${base}#2`,
    GSI2SK: "a",
  };
  const large: Image = { PK: base, SK: "LARGE", blob: "x".repeat(2500) };
  const read = async (key: Image) =>
    (await documentClient.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  const measure = async (
    write: string,
    send: () => Promise<unknown>,
    model: () => Promise<{ table: number; indexes: number }>,
  ) => {
    meter.start({ capacity: true });
    await send();
    const [record] = meter.drain();
    meter.stop();
    const expected = record?.modelled ?? (await model());
    const localTable = record?.tableUnits ?? Number.NaN;
    const localIndexes = record?.indexUnits ?? Number.NaN;
    checks.push({
      write,
      localTable,
      localIndexes,
      modelTable: expected.table,
      modelIndexes: expected.indexes,
      agrees: localTable === expected.table && localIndexes === expected.indexes,
    });
  };

  await measure(
    "PutItem, item with 2 index keys",
    () => documentClient.send(new PutCommand({ TableName: tableName, Item: indexed })),
    async () => standardWriteUnits({ action: "Put", before: undefined, after: indexed }),
  );
  const indexedKey = { PK: base, SK: "INDEXED" };
  const beforeMove = await read(indexedKey);
  await measure(
    "UpdateItem moving one index key",
    () =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: indexedKey,
          UpdateExpression: "SET GSI1PK = :moved",
          ExpressionAttributeValues: { ":moved": `${base}#moved` },
        }),
      ),
    async () => standardWriteUnits({ action: "Update", before: beforeMove, after: await read(indexedKey) }),
  );
  await measure(
    "PutItem, 2.5 KB item",
    () => documentClient.send(new PutCommand({ TableName: tableName, Item: large })),
    async () => standardWriteUnits({ action: "Put", before: undefined, after: large }),
  );
  for (const count of [1, 2, 3]) {
    await measure(
      `TransactWriteItems of ${count} small put${count === 1 ? "" : "s"} (AWS: ${2 * count} WCU)`,
      () =>
        documentClient.send(
          new TransactWriteCommand({
            TransactItems: Array.from({ length: count }, (_, index) => ({
              Put: { TableName: tableName, Item: { PK: base, SK: `TX${count}#${index}` } },
            })),
          }),
        ),
      async () => ({ table: Number.NaN, indexes: Number.NaN }),
    );
  }
  return checks;
}
