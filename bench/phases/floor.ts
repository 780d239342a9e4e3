/**
 * Phase 1, the floor: raw PutItem / UpdateItem / GetItem of an event item
 * (built by the service's own `eventItem`, so it is exactly what
 * POST /api/sdk/events stores), straight from Node through the service's
 * document client — sequential, then 32 (or BENCH_CONCURRENCY) in flight.
 * Also calibrates how DynamoDB Local reports transactional capacity.
 *
 * Imported only after the service environment points at DynamoDB Local.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { AgentEvent, NewEvent } from "../../functions/domain/event.js";
import { newId } from "../../functions/domain/ids.js";
import { documentClient, tableName } from "../../functions/store/dynamo-client.js";
import { MAX_TRANSACTION_ITEMS } from "../../functions/store/event-batch-store.js";
import { eventItem } from "../../functions/store/event-store.js";
import { expiryEpochSeconds } from "../../functions/store/retention.js";
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

export interface FloorOperation {
  readonly label: string;
  /** Items one operation writes or reads (1, except the transactions shaped like the event routes). */
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
  /** Warm-up, then `samples` sequential calls of each operation. */
  sequential(): Promise<void>;
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
  // The batch route fills a transaction: up to MAX_TRANSACTION_ITEMS − 1 event puts + the counter update.
  const BATCH_CHUNK = MAX_TRANSACTION_ITEMS - 1;
  // Enough distinct items that no two transactions in flight put the same one.
  const items = await eventItems(
    Math.max(warmUp + samples + concurrentOperations + 1, 2 * inFlight * MAX_TRANSACTION_ITEMS),
    sessionId,
  );
  const keyOf = (index: number) => {
    const item = items[index % items.length] as Record<string, unknown>;
    return { PK: item.PK, SK: item.SK };
  };
  let nextPut = 0;
  const put = () =>
    documentClient.send(new PutCommand({ TableName: tableName, Item: items[nextPut++ % items.length] }));
  const update = (index: number) =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyOf(index),
        UpdateExpression: "ADD eventCount :one, eventCost :cost SET lastActivityAt = :now",
        ExpressionAttributeValues: { ":one": 1, ":cost": 0.0021, ":now": new Date().toISOString() },
      }),
    );
  const get = (index: number) =>
    documentClient.send(new GetCommand({ TableName: tableName, Key: keyOf(index), ConsistentRead: true }));

  // The write shapes of the event routes, for the same items: POST /api/sdk/events is one transaction of
  // the event put + the session's counter update; the batch route writes a session's events in transactions
  // of up to 99 puts + that counter update. Counter items rotate over 256 sessions so that no two
  // transactions in flight touch the same one (which would be a transaction conflict, not a measurement).
  const counterUpdate = (index: number) => ({
    Update: {
      TableName: tableName,
      Key: { PK: `SESSION#${sessionId}-${index % 256}`, SK: "SESSION" },
      UpdateExpression: "ADD eventCount :one, eventCost :cost SET lastActivityAt = :now",
      ExpressionAttributeValues: { ":one": 1, ":cost": 0.0021, ":now": new Date().toISOString() },
    },
  });
  const eventTransaction = (index: number) =>
    documentClient.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: tableName, Item: items[nextPut++ % items.length] } }, counterUpdate(index)],
      }),
    );
  const chunkTransaction = (index: number) =>
    documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          ...Array.from({ length: BATCH_CHUNK }, () => ({
            Put: { TableName: tableName, Item: items[nextPut++ % items.length] },
          })),
          counterUpdate(index),
        ],
      }),
    );

  const kinds = [
    { label: "PutItem (event item)", run: put, unitKind: "WCU" as const, items: 1 },
    { label: "UpdateItem (event item: ADD counters, SET timestamp)", run: update, unitKind: "WCU" as const, items: 1 },
    { label: "GetItem (event item, strongly consistent)", run: get, unitKind: "RCU" as const, items: 1 },
    {
      label: "TransactWriteItems: event put + counter update (POST /api/sdk/events' write)",
      run: eventTransaction,
      unitKind: "WCU" as const,
      items: 2,
    },
    {
      label: `TransactWriteItems: ${BATCH_CHUNK} event puts + counter update (the batch route's write)`,
      run: chunkTransaction,
      unitKind: "WCU" as const,
      items: BATCH_CHUNK + 1,
    },
  ];
  /** A kind's share of the sample counts: a 100-item transaction runs 1/100 as many times. */
  const share = (count: number, items: number) => Math.max(10, Math.round(count / items));
  const sequentialResults = new Map<string, Throughput>();
  return {
    async sequential() {
      for (const kind of kinds) {
        for (let index = 0; index < share(warmUp, kind.items); index++) await kind.run(index);
        const seq = await sequential(kind.run, share(samples, kind.items));
        sequentialResults.set(kind.label, seq);
        options.log(
          `  ${kind.label}: p50 ${seq.latency.p50.toFixed(2)} ms, ${seq.operationsPerSecond.toFixed(0)}/s sequential`,
        );
      }
    },
    async concurrent() {
      const measured: FloorOperation[] = [];
      for (const kind of kinds) {
        const seq = sequentialResults.get(kind.label);
        if (seq === undefined) throw new Error("floor: sequential() must run first");
        const conc = await concurrent(
          kind.run,
          Math.max(2 * inFlight, share(concurrentOperations, kind.items)),
          inFlight,
        );
        options.meter.start({ capacity: true });
        await kind.run(0);
        const [record] = options.meter.drain();
        options.meter.stop();
        measured.push({
          label: kind.label,
          itemsPerOperation: kind.items,
          sequential: seq,
          concurrent: conc,
          reportedUnits:
            record?.modelled !== undefined
              ? record.modelled.table + record.modelled.indexes
              : (record?.tableUnits ?? Number.NaN) + (record?.indexUnits ?? 0),
          unitKind: kind.unitKind,
        });
        options.log(
          `  ${kind.label}: p50 ${conc.latency.p50.toFixed(2)} ms, ${conc.operationsPerSecond.toFixed(0)}/s at ${inFlight} in flight`,
        );
      }
      const capacityChecks = await checkCapacityModel(options.meter);
      return { operations: measured, eventItemBytes: itemBytes(items[0]), capacityChecks };
    },
  };
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
