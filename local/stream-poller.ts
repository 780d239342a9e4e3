/**
 * The local stand-in for Lambda's event source mapping on the table's
 * stream: polls DynamoDB Local's own stream (the DynamoDB Streams API) and
 * hands each shard's records gathered since its last poll, in order and in one
 * batch (up to the stack's batch size), to the very stream consumer module AWS
 * runs (functions/stream/stream-consumer.ts), with the shard id as a tumbling
 * window gives it: the poll interval is the local batching window. A child shard is read only once
 * its parent is finished; a batch whose answer names a failed record is read
 * again from that record. Positions live in memory: after a restart the
 * poller reads the stream from its oldest record again, which counting
 * recognises (per-shard high-water marks), so nothing is counted twice.
 */

import { DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type ShardIteratorType,
  type _Record as StreamRecord,
} from "@aws-sdk/client-dynamodb-streams";
import type { DynamoDBRecord } from "aws-lambda";
import type { StreamBatchEvent, StreamBatchResponse } from "../functions/stream/stream-consumer.js";
import { WINDOWED_STREAM_BATCH_SIZE } from "../lib/stream-batching.js";
import { deployedStreamReaders } from "./deployed-stream-readers.js";
import type { LocalCredentials } from "./dynamo-credentials.js";
import { LOCAL_REGION } from "./dynamo-endpoint.js";

const GET_RECORDS_LIMIT = 1000;
/** How often a background poll reads the table's description again (its stream's ARN). */
const TABLE_RECHECK_MS = 10_000;
/** How often a background poll reads the stream's shards again. */
const STREAM_RECHECK_MS = 1_000;

export interface StreamPollerOptions {
  readonly endpoint: string;
  readonly credentials: LocalCredentials;
  readonly tableName: string;
  /** Where shards present at start are read from: all their records, or only records written from now on. */
  readonly startAt: "oldest" | "now";
  /**
   * Milliseconds between polls in the background; 0: no background polling (call `drain`). Each poll hands a
   * shard's records gathered since the last one to the consumer in one invocation (up to `batchSize`): the
   * interval is the local batching window, as the event source mapping's MaximumBatchingWindowInSeconds on AWS.
   * `drain()` polls at once.
   */
  readonly intervalMs: number;
  /** Records per invocation at most (default: the stack's batch size). */
  readonly batchSize?: number;
  /** The consumer (default: functions/stream/stream-consumer.ts `handler`). */
  readonly consume?: (event: StreamBatchEvent) => Promise<StreamBatchResponse>;
  /** Called with each failure of a poll (the poller goes on). */
  readonly onError?: (error: unknown) => void;
}

export interface StreamPoller {
  /** Counts every record written before the call; resolves once the consumer has taken them all. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

interface ShardState {
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  iterator: string | undefined;
  /** The last record handed to the consumer and accepted. */
  lastSequence: string | undefined;
  /** A failed record to read again from when none before it was accepted (its position is not "after" any). */
  retryFrom: string | undefined;
  /** Read to its end (the shard is closed and empty from here). */
  finished: boolean;
  initialType: ShardIteratorType;
}

type WireValue = Record<string, unknown>;

/** What one read of a shard, or one pass over them all, did. */
interface PollResult {
  readonly accepted: number;
  readonly caughtUp: boolean;
  /** A shard was read to its close in the pass: its children are read in another. */
  readonly shardClosed?: boolean;
}

/**
 * The SDK's Streams client reads an empty map or list attribute (`{"M":{}}`) as `{}`, which no decoder
 * accepts; counting never reads those attributes, so they come back as empty maps.
 */
function repairedImage(image: Record<string, WireValue> | undefined): Record<string, WireValue> | undefined {
  if (image === undefined) return undefined;
  const repair = (value: WireValue): WireValue => {
    if (Object.keys(value).length === 0) return { M: {} };
    if (value.M !== undefined && typeof value.M === "object" && value.M !== null) {
      return {
        M: Object.fromEntries(Object.entries(value.M as Record<string, WireValue>).map(([k, v]) => [k, repair(v)])),
      };
    }
    if (Array.isArray(value.L)) return { L: (value.L as WireValue[]).map(repair) };
    return value;
  };
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, repair(value)]));
}

function lambdaRecord(record: StreamRecord): DynamoDBRecord {
  const { ApproximateCreationDateTime, NewImage, OldImage, ...stream } = record.dynamodb ?? {};
  const newImage = repairedImage(NewImage as Record<string, WireValue> | undefined);
  const oldImage = repairedImage(OldImage as Record<string, WireValue> | undefined);
  return {
    ...(record as unknown as DynamoDBRecord),
    dynamodb: {
      ...(stream as DynamoDBRecord["dynamodb"]),
      ...(newImage === undefined ? {} : { NewImage: newImage as NonNullable<DynamoDBRecord["dynamodb"]>["NewImage"] }),
      ...(oldImage === undefined ? {} : { OldImage: oldImage as NonNullable<DynamoDBRecord["dynamodb"]>["OldImage"] }),
      ...(ApproximateCreationDateTime === undefined
        ? {}
        : { ApproximateCreationDateTime: Math.floor(ApproximateCreationDateTime.getTime() / 1000) }),
    },
  };
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "";
}

export async function startStreamPoller(client: DynamoDBClient, options: StreamPollerOptions): Promise<StreamPoller> {
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: LOCAL_REGION,
    credentials: { ...options.credentials },
    maxAttempts: 1,
  });
  const consume = options.consume ?? (await deployedStreamReaders());
  const batchSize = options.batchSize ?? WINDOWED_STREAM_BATCH_SIZE;
  let streamArn: string | undefined;
  let shards = new Map<string, ShardState>();
  let firstDescribe = true;
  // What DynamoDB Local spends on a poll's reads of the table's and the stream's descriptions (~11 ms and ~3 ms of
  // its CPU, measured) outweighs reading an empty shard (~3 ms): at ten polls a second that was a sixth of a core
  // for nothing. The table is read once and again only after a failed poll (an in-memory DynamoDB Local that
  // restarted has a new stream) or every TABLE_RECHECK_MS; the stream's shards every STREAM_RECHECK_MS and after
  // a shard closed.
  let tableCheckedAt: number | undefined;
  let streamCheckedAt: number | undefined;

  async function describe(thorough: boolean): Promise<void> {
    const now = Date.now();
    if (streamArn === undefined || tableCheckedAt === undefined || now - tableCheckedAt >= TABLE_RECHECK_MS) {
      const table = await client.send(new DescribeTableCommand({ TableName: options.tableName }));
      const arn = table.Table?.LatestStreamArn;
      if (arn === undefined) throw new Error(`Table ${options.tableName} has no stream`);
      tableCheckedAt = now;
      if (arn !== streamArn) {
        // A new stream (the table was created again, e.g. an in-memory DynamoDB Local restarted): start over.
        streamArn = arn;
        shards = new Map();
        streamCheckedAt = undefined;
      }
    }
    if (!thorough && streamCheckedAt !== undefined && now - streamCheckedAt < STREAM_RECHECK_MS) return;
    const arn = streamArn;
    let startShard: string | undefined;
    do {
      const page = await streams.send(
        new DescribeStreamCommand({
          StreamArn: arn,
          ...(startShard === undefined ? {} : { ExclusiveStartShardId: startShard }),
        }),
      );
      for (const shard of page.StreamDescription?.Shards ?? []) {
        if (shard.ShardId === undefined || shards.has(shard.ShardId)) continue;
        shards.set(shard.ShardId, {
          shardId: shard.ShardId,
          parentShardId: shard.ParentShardId,
          iterator: undefined,
          lastSequence: undefined,
          retryFrom: undefined,
          finished: false,
          initialType: firstDescribe && options.startAt === "now" ? "LATEST" : "TRIM_HORIZON",
        });
      }
      startShard = page.StreamDescription?.LastEvaluatedShardId;
    } while (startShard !== undefined);
    streamCheckedAt = now;
    firstDescribe = false;
  }

  /** After a failed poll the table is read again first (its stream may be a new one). */
  function recheckTable(): void {
    tableCheckedAt = undefined;
  }

  async function iteratorOf(shard: ShardState): Promise<string | undefined> {
    if (shard.iterator !== undefined) return shard.iterator;
    const position =
      shard.retryFrom !== undefined
        ? { ShardIteratorType: "AT_SEQUENCE_NUMBER" as const, SequenceNumber: shard.retryFrom }
        : shard.lastSequence === undefined
          ? { ShardIteratorType: shard.initialType }
          : { ShardIteratorType: "AFTER_SEQUENCE_NUMBER" as const, SequenceNumber: shard.lastSequence };
    try {
      const result = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.shardId, ...position }),
      );
      shard.iterator = result.ShardIterator;
    } catch (error) {
      // The position was trimmed away: read what is left (counting skips what it has counted).
      if (errorName(error) !== "TrimmedDataAccessException") throw error;
      const result = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.shardId,
          ShardIteratorType: "TRIM_HORIZON",
        }),
      );
      shard.iterator = result.ShardIterator;
    }
    return shard.iterator;
  }

  /**
   * Reads a shard (GetRecords pages until a short one or a full batch) and hands what it read to the consumer, a
   * batch at a time; resolves with the records accepted, and whether the shard was read to its end (a short
   * page, every record accepted).
   */
  async function pollShard(shard: ShardState): Promise<PollResult> {
    let iterator = await iteratorOf(shard);
    if (iterator === undefined) {
      shard.finished = true;
      return { accepted: 0, caughtUp: true };
    }
    const records: StreamRecord[] = [];
    let page: GetRecordsCommandOutput;
    do {
      try {
        page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: GET_RECORDS_LIMIT }));
      } catch (error) {
        shard.iterator = undefined;
        if (errorName(error) === "ExpiredIteratorException") return { accepted: 0, caughtUp: false };
        throw error;
      }
      records.push(...(page.Records ?? []));
      iterator = page.NextShardIterator;
    } while (iterator !== undefined && (page.Records ?? []).length >= GET_RECORDS_LIMIT && records.length < batchSize);
    let accepted = 0;
    for (let start = 0; start < records.length; start += batchSize) {
      const batch = records.slice(start, start + batchSize);
      const answer = await consume({ Records: batch.map(lambdaRecord), shardId: shard.shardId, state: {} });
      const failed = answer.batchItemFailures[0]?.itemIdentifier;
      if (failed !== undefined) {
        // Read again from the failed record (as Lambda does with a partial batch failure).
        const failedIndex = batch.findIndex((record) => record.dynamodb?.SequenceNumber === failed);
        const before = failedIndex > 0 ? batch[failedIndex - 1] : start > 0 ? records[start - 1] : undefined;
        const kept = before?.dynamodb?.SequenceNumber;
        if (kept !== undefined) shard.lastSequence = kept;
        // The very first record read failed: from the start position ("now" is LATEST) it would be skipped.
        else if (shard.lastSequence === undefined && failedIndex === 0) shard.retryFrom = failed;
        shard.iterator = undefined;
        return { accepted: accepted + Math.max(0, failedIndex), caughtUp: false };
      }
      accepted += batch.length;
      shard.lastSequence = batch.at(-1)?.dynamodb?.SequenceNumber ?? shard.lastSequence;
      shard.retryFrom = undefined;
    }
    shard.iterator = iterator;
    if (iterator === undefined) shard.finished = true;
    return { accepted: records.length, caughtUp: (page.Records ?? []).length < GET_RECORDS_LIMIT };
  }

  /** One pass over the readable shards; resolves with the records accepted and whether every shard was read to its end. */
  async function pollOnce(thorough: boolean): Promise<PollResult> {
    await describe(thorough);
    let accepted = 0;
    let caughtUp = true;
    let shardClosed = false;
    for (const shard of shards.values()) {
      if (shard.finished) continue;
      const parent = shard.parentShardId === undefined ? undefined : shards.get(shard.parentShardId);
      if (parent !== undefined && !parent.finished) {
        caughtUp = false;
        continue;
      }
      const result = await pollShard(shard);
      accepted += result.accepted;
      caughtUp &&= result.caughtUp;
      if (shard.finished) {
        // A closed shard: its children (a new shard takes the writes) are found and read in the next pass, which
        // reads the stream's shards again.
        streamCheckedAt = undefined;
        shardClosed = true;
      }
    }
    return { accepted, caughtUp, shardClosed };
  }

  // One poll at a time: the background loop and drain() take turns.
  let running: Promise<unknown> = Promise.resolve();
  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = running.then(work, work);
    running = next.catch(() => undefined);
    return next;
  }

  // Fix the starting positions now: records written from here on are the poller's, whenever it first polls.
  await exclusive(async () => {
    await describe(true);
    for (const shard of shards.values()) await iteratorOf(shard);
  });

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const report = options.onError ?? (() => undefined);
  // As the event source mapping: records wait for the window, counted from the previous poll's start (records
  // that came while a long batch was counted have waited already), unless a full batch is there already (a
  // shard that was not read to its end is read again at once).
  function schedule(delayMs: number): void {
    if (stopped || options.intervalMs === 0) return;
    timer = setTimeout(() => {
      const startedAt = Date.now();
      exclusive(() => pollOnce(false))
        .then(
          ({ caughtUp, accepted }) =>
            schedule(caughtUp || accepted === 0 ? Math.max(0, options.intervalMs - (Date.now() - startedAt)) : 0),
          (error: unknown) => {
            recheckTable();
            report(error);
            schedule(options.intervalMs);
          },
        )
        .catch(report);
    }, delayMs);
    timer.unref();
  }
  schedule(options.intervalMs);

  // A drain whose first pass has not begun: a drain asked for meanwhile shares it (that pass begins after both
  // calls, so it reads what each of them waits for). Test files running side by side drain often, and each drain
  // queued behind the others' passes; shared, one pass serves them all.
  let waitingDrain: Promise<void> | undefined;

  return {
    drain() {
      if (waitingDrain !== undefined) return waitingDrain;
      const state = { begun: false };
      const drained = drainFromNow(() => {
        if (state.begun) return;
        state.begun = true;
        if (waitingDrain === drained) waitingDrain = undefined;
      });
      waitingDrain = drained;
      return drained;
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
      streams.destroy();
    },
  };

  async function drainFromNow(onPassBegins: () => void): Promise<void> {
    // Until a pass that began after the call read every shard to its end (DynamoDB Local returns what is
    // written before the read): what other writers add meanwhile is not waited for. A pass that accepts
    // nothing (a record that keeps failing) ends the drain too.
    // The stream's shards are read again only when one closed (or every STREAM_RECHECK_MS): DynamoDB Local's
    // DescribeStream costs more the more records the stream holds (3 ms at 2,500, 50–90 ms at 40,000, measured),
    // and a drain ran it on every pass. A pass whose stream is gone (DynamoDB Local restarted in memory) reads
    // the table's description again, for the new stream, and is run again.
    // A drain reads the table's description once (a DynamoDB Local restarted in memory since the last poll has a
    // new stream, whose shards the drain must read).
    recheckTable();
    for (let pass = 0; pass < 1000; pass++) {
      const { accepted, caughtUp, shardClosed } = await exclusive(() => {
        onPassBegins();
        return pollOnce(false).catch((error: unknown) => {
          if (errorName(error) !== "ResourceNotFoundException") throw error;
          recheckTable();
          return pollOnce(true);
        });
      });
      if (shardClosed === true) continue;
      if (caughtUp || accepted === 0) return;
    }
    throw new Error("The stream kept growing while it was drained");
  }
}
