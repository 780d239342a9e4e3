/**
 * The stream consumer under the load phase: the poller of local/stream-poller.ts (what `npm start` runs)
 * reading DynamoDB Local's stream every `intervalMs` from the moment it starts, handing each shard's records,
 * 100 at a time, to the service's own consumer (functions/stream/stream-consumer.ts `handler`).
 *
 * Between the two, this phase does what the event source mapping does on AWS and measures the consumer:
 * - records are filtered as the stack's filter does (INSERT or MODIFY of a `SESSION#` partition); a batch
 *   with none left is not an invocation (Lambda would not invoke);
 * - each invocation's wall time (Lambda bills it rounded up to 1 ms) and its DynamoDB commands (the meter on,
 *   capacity requested, any transaction costed afterwards from the items' final images — so nothing is read
 *   around a transaction while the consumer runs and the lag is not inflated by the metering); a session's
 *   own commands go to its class, the batch's shared ones (the sessions' BatchGetItem, the rollup items
 *   summed across sessions) to every class by its share of the invocation's records;
 * - for every event record, the lag from its acknowledgement to its counting: the time the handler returned
 *   (its counts committed) − the event's `createdAt` (set just before the event's PutItem, so the lag is
 *   overstated by that one write);
 * - all of it by traffic class: the sessions of single events, of batches, and the rest (session starts and
 *   ends), from each record's and command's session partition. An invocation's duration and its invocation
 *   count are shared between the classes in proportion to their records.
 */
import type { DynamoDBRecord } from "aws-lambda";
import type { StreamBatchEvent, StreamBatchResponse } from "../../functions/stream/stream-consumer.js";
import type { LocalCredentials } from "../../local/dynamo-credentials.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { startStreamPoller } from "../../local/stream-poller.js";
import type { UnitWork } from "../harness/cost-model.js";
import {
  billedUnits,
  type CommandRecord,
  type DynamoMeter,
  modelDeferredTransactions,
} from "../harness/dynamo-meter.js";
import { type LatencySummary, summarize } from "../harness/stats.js";

export const TRAFFIC_CLASSES = ["single", "batch", "other"] as const;
export type TrafficClass = (typeof TRAFFIC_CLASSES)[number];

/** What the consumer did for one traffic class over the whole counting window. */
export interface ClassCounting {
  readonly trafficClass: TrafficClass;
  /** Event INSERT records counted. */
  readonly events: number;
  /** Records of the class handed to the consumer (after the filter; includes the consumer's own session updates coming back). */
  readonly records: number;
  /** Invocations, each shared by its records' classes. */
  readonly invocations: number;
  readonly lambdaMs: number;
  readonly lambdaBilledMs: number;
  /** (session, invocation) pairs with at least one event: how often a session's events were counted together. */
  readonly sessionBatches: number;
  /** events ÷ sessionBatches: events per session per consumer batch (the traffic shape the counting cost depends on). */
  readonly eventsPerSessionPerBatch: number;
  readonly transactions: number;
  readonly itemsPerTransaction: number;
  readonly roundTrips: number;
  readonly commands: Readonly<Record<string, number>>;
  readonly writeUnits: number;
  readonly readUnits: number;
  /** Acknowledgement → counted, per event, ms. */
  readonly lag: LatencySummary;
  /** Per event counted: the consumer's share of Lambda and DynamoDB work (no API request). */
  readonly perEvent: UnitWork;
}

export interface CountingResult {
  readonly intervalMs: number;
  readonly batchSize: number;
  readonly seconds: number;
  /** Of which: the drain after the load stopped. */
  readonly drainSeconds: number;
  readonly invocations: number;
  readonly recordsPerInvocation: LatencySummary;
  /** Records read from the stream but dropped by the filter (other partitions, REMOVEs). */
  readonly filteredOut: number;
  /** Invocations whose answer named a failed record (read again by the poller). */
  readonly partialFailures: number;
  readonly classes: readonly ClassCounting[];
  /** The consumer's commands by kind over the whole run, for the production-shaped model: count and billed units. */
  readonly writes: {
    readonly sessionCounters: CommandTotals;
    readonly rollupItems: CommandTotals;
    readonly sessionReads: CommandTotals & { readonly keys: number };
  };
  /** Consumer wall time per record handed to it (ms). */
  readonly msPerRecord: number;
  /**
   * Scores counted (issue 33), measured apart: each invocation's score records are handed to the consumer in a
   * call of their own after the rest (their counting touches no session or event item), metered separately.
   */
  readonly scores: ScoreCounting;
  /** The export's change marker (issue 35) over the same batches, measured apart. */
  readonly exportMarking: ExportMarking;
}

/**
 * The export's second reader of the stream (functions/stream/export-change-consumer.ts) handed each batch after the
 * counting consumer — on AWS its own event source mapping delivers it the same shard's records — with the records
 * its filter passes (any change of a session or conversation partition), metered apart.
 */
export interface ExportMarking {
  readonly invocations: number;
  readonly records: number;
  /** Event INSERT records among them (what `perEvent` divides by). */
  readonly events: number;
  readonly commands: Readonly<Record<string, number>>;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly lambdaBilledMs: number;
  readonly perEvent: UnitWork;
}

/** The consumer's work for the scores written under load, per score record counted. */
export interface ScoreCounting {
  readonly records: number;
  readonly commands: Readonly<Record<string, number>>;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly lambdaBilledMs: number;
  readonly perScore: UnitWork;
}

export interface CommandTotals {
  readonly commands: number;
  readonly units: number;
}

export interface CountingConsumer {
  /** Counts what is left on the stream, stops the poller and costs the recorded work. */
  finish(): Promise<CountingResult>;
}

interface ScoreInvocation {
  readonly ms: number;
  readonly records: number;
  readonly commands: readonly CommandRecord[];
}

interface Invocation {
  readonly ms: number;
  readonly records: Record<TrafficClass, number>;
  readonly sessionsWithEvents: Record<TrafficClass, number>;
  readonly commands: readonly CommandRecord[];
}

const SESSION_PREFIX = "SESSION#";

function partitionOf(record: DynamoDBRecord): string | undefined {
  return record.dynamodb?.Keys?.PK?.S;
}

function isScoreRecord(record: DynamoDBRecord): boolean {
  return record.dynamodb?.NewImage?.entity?.S === "score";
}

/**
 * The stack's event source filter: INSERT or MODIFY of a session partition, but a score's MODIFY only when a request
 * wrote it (`countPending`), not the consumer's own count write.
 */
function passesFilter(record: DynamoDBRecord): boolean {
  if (
    record.eventName === "MODIFY" &&
    isScoreRecord(record) &&
    record.dynamodb?.NewImage?.countPending?.BOOL !== true
  ) {
    return false;
  }
  return (
    (record.eventName === "INSERT" || record.eventName === "MODIFY") &&
    (partitionOf(record)?.startsWith(SESSION_PREFIX) ?? false)
  );
}

/** The export marker's event source filter (lib/constructs/export-change-stream.ts): a session's or conversation's partition. */
function passesExportFilter(record: DynamoDBRecord): boolean {
  const partition = partitionOf(record) ?? "";
  return partition.startsWith(SESSION_PREFIX) || partition.startsWith("CONVERSATION#");
}

const zeroes = (): Record<TrafficClass, number> => ({ single: 0, batch: 0, other: 0 });

export async function startCountingConsumer(options: {
  readonly endpoint: string;
  readonly credentials: LocalCredentials;
  readonly tableName: string;
  readonly intervalMs: number;
  readonly meter: DynamoMeter;
  /** The class of a session (by id). */
  readonly classOf: (sessionId: string) => TrafficClass;
  readonly onError: (error: unknown) => void;
}): Promise<CountingConsumer> {
  const { handler } = await import("../../functions/stream/stream-consumer.js");
  const { handler: markExportChanges } = await import("../../functions/stream/export-change-consumer.js");
  const { documentClient } = await import("../../functions/store/table/dynamo-client.js");
  const classOfPartition = (partition: string | undefined): TrafficClass =>
    partition?.startsWith(SESSION_PREFIX) ? options.classOf(partition.slice(SESSION_PREFIX.length)) : "other";
  const invocations: Invocation[] = [];
  const scoreInvocations: ScoreInvocation[] = [];
  const markerInvocations: { ms: number; records: number; events: number; commands: readonly CommandRecord[] }[] = [];
  const lags: Record<TrafficClass, number[]> = { single: [], batch: [], other: [] };
  let filteredOut = 0;
  let partialFailures = 0;
  let batchSize = 0;

  /** The export's marker over the batch, after the counting (its lag is measured before this runs). */
  const markExport = async (event: StreamBatchEvent): Promise<void> => {
    const records = event.Records.filter(passesExportFilter);
    if (records.length === 0) return;
    options.meter.drain();
    const started = performance.now();
    const answer = await markExportChanges({ ...event, Records: records });
    const ms = performance.now() - started;
    if (answer.batchItemFailures.length > 0) throw new Error("the export's marker failed a batch");
    const events = records.filter(
      (record) => record.eventName === "INSERT" && record.dynamodb?.NewImage?.entity?.S === "event",
    ).length;
    markerInvocations.push({ ms, records: records.length, events, commands: options.meter.drain() });
  };

  const consume = async (event: StreamBatchEvent): Promise<StreamBatchResponse> => {
    const answer = await count(event);
    if (answer.batchItemFailures.length === 0) await markExport(event);
    return answer;
  };

  const count = async (event: StreamBatchEvent): Promise<StreamBatchResponse> => {
    batchSize = Math.max(batchSize, event.Records.length);
    const passed = event.Records.filter(passesFilter);
    filteredOut += event.Records.length - passed.length;
    const scoreRecords = passed.filter(isScoreRecord);
    const records = passed.filter((record) => !isScoreRecord(record));
    if (scoreRecords.length > 0) {
      options.meter.drain();
      const scoreStarted = performance.now();
      const scored = await handler({ ...event, Records: scoreRecords });
      scoreInvocations.push({
        ms: performance.now() - scoreStarted,
        records: scoreRecords.length,
        commands: options.meter.drain(),
      });
      if (scored.batchItemFailures.length > 0) return scored;
    }
    if (records.length === 0) return { state: {}, batchItemFailures: [] };
    options.meter.drain();
    const started = performance.now();
    const answer = await handler({ ...event, Records: records });
    const ms = performance.now() - started;
    const countedAt = Date.now();
    const commands = options.meter.drain();
    if (answer.batchItemFailures.length > 0) partialFailures += 1;
    const failedFrom = answer.batchItemFailures[0]?.itemIdentifier;
    const perClass = zeroes();
    const sessions: Record<TrafficClass, Set<string>> = { single: new Set(), batch: new Set(), other: new Set() };
    let failed = false;
    for (const record of records) {
      const partition = partitionOf(record);
      const trafficClass = classOfPartition(partition);
      perClass[trafficClass] += 1;
      if (record.dynamodb?.SequenceNumber === failedFrom) failed = true;
      const image = record.dynamodb?.NewImage;
      if (failed || record.eventName !== "INSERT" || image?.entity?.S !== "event") continue;
      sessions[trafficClass].add(String(partition));
      const createdAt = Date.parse(String(image.createdAt?.S));
      if (Number.isFinite(createdAt)) lags[trafficClass].push(countedAt - createdAt);
    }
    invocations.push({
      ms,
      records: perClass,
      sessionsWithEvents: { single: sessions.single.size, batch: sessions.batch.size, other: sessions.other.size },
      commands,
    });
    return answer;
  };

  const client = createLocalDynamoClient(options.endpoint, options.credentials);
  options.meter.start({ capacity: true, transactionImages: "deferred" });
  const started = performance.now();
  const poller = await startStreamPoller(client, {
    endpoint: options.endpoint,
    credentials: options.credentials,
    tableName: options.tableName,
    startAt: "now",
    intervalMs: options.intervalMs,
    consume,
    onError: options.onError,
  });

  return {
    async finish() {
      const drainStarted = performance.now();
      try {
        await poller.drain();
      } finally {
        await poller.stop();
        client.destroy();
        options.meter.stop();
      }
      const seconds = (performance.now() - started) / 1000;
      const drainSeconds = (performance.now() - drainStarted) / 1000;
      // Transactions costed from the items' images now (counters only grow: an upper bound per write).
      const all = invocations.flatMap((invocation) => invocation.commands);
      const modelled = await modelDeferredTransactions(documentClient, all);
      const scoreCommands = await modelDeferredTransactions(
        documentClient,
        scoreInvocations.flatMap((invocation) => invocation.commands),
      );
      const scoreRecordCount = scoreInvocations.reduce((sum, invocation) => sum + invocation.records, 0);
      const scoreTotals = { writeUnits: 0, readUnits: 0, commands: {} as Record<string, number> };
      for (const command of scoreCommands) {
        scoreTotals.commands[command.command] = (scoreTotals.commands[command.command] ?? 0) + 1;
        if (command.kind === "write") scoreTotals.writeUnits += billedUnits(command);
        if (command.kind === "read") scoreTotals.readUnits += billedUnits(command);
      }
      const scoreBilledMs = scoreInvocations.reduce((sum, invocation) => sum + Math.ceil(invocation.ms), 0);
      const perScore = (value: number) => (scoreRecordCount === 0 ? Number.NaN : value / scoreRecordCount);
      const scores: ScoreCounting = {
        records: scoreRecordCount,
        commands: scoreTotals.commands,
        writeUnits: scoreTotals.writeUnits,
        readUnits: scoreTotals.readUnits,
        lambdaBilledMs: scoreBilledMs,
        perScore: {
          apiRequests: 0,
          // Counted with the rest of its batch on AWS: the invocation is the batch's, not the score's.
          lambdaInvocations: 0,
          lambdaBilledMs: perScore(scoreBilledMs),
          writeRequestUnits: perScore(scoreTotals.writeUnits),
          readRequestUnits: perScore(scoreTotals.readUnits),
          s3Puts: 0,
        },
      };
      const markerCommands = markerInvocations.flatMap((invocation) => invocation.commands);
      const markerTotals = { writeUnits: 0, readUnits: 0, commands: {} as Record<string, number> };
      for (const command of markerCommands) {
        markerTotals.commands[command.command] = (markerTotals.commands[command.command] ?? 0) + 1;
        if (command.kind === "write") markerTotals.writeUnits += billedUnits(command);
        if (command.kind === "read") markerTotals.readUnits += billedUnits(command);
      }
      const markedEvents = markerInvocations.reduce((sum, invocation) => sum + invocation.events, 0);
      const markerBilledMs = markerInvocations.reduce((sum, invocation) => sum + Math.ceil(invocation.ms), 0);
      const perMarkedEvent = (value: number) => (markedEvents === 0 ? Number.NaN : value / markedEvents);
      const exportMarking: ExportMarking = {
        invocations: markerInvocations.length,
        records: markerInvocations.reduce((sum, invocation) => sum + invocation.records, 0),
        events: markedEvents,
        commands: markerTotals.commands,
        writeUnits: markerTotals.writeUnits,
        readUnits: markerTotals.readUnits,
        lambdaBilledMs: markerBilledMs,
        perEvent: {
          apiRequests: 0,
          lambdaInvocations: perMarkedEvent(markerInvocations.length),
          lambdaBilledMs: perMarkedEvent(markerBilledMs),
          writeRequestUnits: perMarkedEvent(markerTotals.writeUnits),
          readRequestUnits: perMarkedEvent(markerTotals.readUnits),
          s3Puts: 0,
        },
      };
      let cursor = 0;
      const costed = invocations.map((invocation) => {
        const commands = modelled.slice(cursor, cursor + invocation.commands.length);
        cursor += invocation.commands.length;
        return { ...invocation, commands };
      });
      const classes = TRAFFIC_CLASSES.map((trafficClass): ClassCounting => {
        let records = 0;
        let invocationShare = 0;
        let msShare = 0;
        let billedShare = 0;
        let sessionBatches = 0;
        let transactions = 0;
        let transactionItems = 0;
        let roundTrips = 0;
        let writeUnits = 0;
        let readUnits = 0;
        const commandCounts: Record<string, number> = {};
        for (const invocation of costed) {
          const total = invocation.records.single + invocation.records.batch + invocation.records.other;
          const share = total === 0 ? 0 : invocation.records[trafficClass] / total;
          records += invocation.records[trafficClass];
          invocationShare += share;
          msShare += invocation.ms * share;
          billedShare += Math.ceil(invocation.ms) * share;
          sessionBatches += invocation.sessionsWithEvents[trafficClass];
          for (const command of invocation.commands) {
            // A session's own commands are its class's; the batch's shared ones (the BatchGetItem of its sessions,
            // the rollup items summed across its sessions) are shared by the classes in proportion to their records.
            const own = command.partition?.startsWith(SESSION_PREFIX) === true;
            const weight = own ? (classOfPartition(command.partition) === trafficClass ? 1 : 0) : share;
            if (weight === 0) continue;
            commandCounts[command.command] = (commandCounts[command.command] ?? 0) + weight;
            roundTrips += command.attempts * weight;
            if (command.command === "TransactWriteItems") {
              transactions += weight;
              transactionItems += command.items * weight;
            }
            if (command.kind === "write") writeUnits += billedUnits(command) * weight;
            if (command.kind === "read") readUnits += billedUnits(command) * weight;
          }
        }
        const events = lags[trafficClass].length;
        const per = (value: number) => (events === 0 ? Number.NaN : value / events);
        return {
          trafficClass,
          events,
          records,
          invocations: invocationShare,
          lambdaMs: msShare,
          lambdaBilledMs: billedShare,
          sessionBatches,
          eventsPerSessionPerBatch: sessionBatches === 0 ? Number.NaN : events / sessionBatches,
          transactions,
          itemsPerTransaction: transactions === 0 ? Number.NaN : transactionItems / transactions,
          roundTrips,
          commands: commandCounts,
          writeUnits,
          readUnits,
          lag: summarize(lags[trafficClass]),
          perEvent: {
            apiRequests: 0,
            lambdaInvocations: per(invocationShare),
            lambdaBilledMs: per(billedShare),
            writeRequestUnits: per(writeUnits),
            readRequestUnits: per(readUnits),
            s3Puts: 0,
          },
        };
      });
      const totals = { sessionCounters: { commands: 0, units: 0 }, rollupItems: { commands: 0, units: 0 } };
      const sessionReads = { commands: 0, units: 0, keys: 0 };
      for (const command of modelled) {
        if (command.command === "UpdateItem") {
          const kind = command.partition?.startsWith(SESSION_PREFIX) === true ? "sessionCounters" : "rollupItems";
          totals[kind].commands += 1;
          totals[kind].units += billedUnits(command);
        } else if (command.command === "BatchGetItem") {
          sessionReads.commands += 1;
          sessionReads.units += billedUnits(command);
          sessionReads.keys += command.items;
        }
      }
      const allRecords = invocations.reduce(
        (sum, invocation) => sum + invocation.records.single + invocation.records.batch + invocation.records.other,
        0,
      );
      return {
        writes: { ...totals, sessionReads },
        scores,
        exportMarking,
        msPerRecord: allRecords === 0 ? Number.NaN : invocations.reduce((sum, i) => sum + i.ms, 0) / allRecords,
        intervalMs: options.intervalMs,
        batchSize,
        seconds,
        drainSeconds,
        invocations: invocations.length,
        recordsPerInvocation: summarize(
          invocations.map(
            (invocation) => invocation.records.single + invocation.records.batch + invocation.records.other,
          ),
        ),
        filteredOut,
        partialFailures,
        classes,
      };
    },
  };
}
