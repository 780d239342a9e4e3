/**
 * GenAI event log records and the model calls they belong to. Each record is one item in its span's
 * partition (`OTELLOG#<tenant>#<traceId>#<spanId>` / `LOG#<time>#<position>#<hash>`, keys.ts): its sort key
 * orders the span's records as they were emitted and names the record, so a retried export writes the same
 * items again. Its messages join the span's `llm_decision` event, whichever arrives first:
 * - the log route writes the records, then marks their spans on the trace's record (trace-session-store.ts
 *   markLogSpans), which tells it the events already recorded: it attaches to those;
 * - the trace route records a model call on the trace's record after writing its event, and reads the marks
 *   in the same write: it attaches to the calls marked.
 * Each side reads the other's write in its own, so at least one of them attaches. An attach rebuilds the
 * event from its span's own content and every record of the span so far; it is written only over an event
 * built from fewer records (`logCount`), so concurrent attaches settle on the one that saw the most.
 *
 * A span keeps a bounded number and size of records (domain/log-record-budget.ts): the log route reads what
 * the span holds from its tally item (`OTELLOG#…` / `TALLY`: the ids and sizes of its records, added after they
 * are written, and how many of them its event was last rebuilt after) before it writes, not the records
 * themselves; every read of a span's records is a Query of at most `LIMITS.otlpLogRecordsPerSpan` items, made
 * only to rebuild its event, so neither an export's work nor the rebuilt event grows with them (ingest-logs.ts
 * bounds the rebuilds of one export).
 */
import { createHash } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { AgentEvent } from "../../domain/event.js";
import { type LogMessages, withLogMessages } from "../../domain/genai-log-events.js";
import type { JsonObject } from "../../domain/json.js";
import { LIMITS } from "../../domain/limits.js";
import {
  admitLogRecords,
  type BudgetedRecord,
  EMPTY_TALLY,
  type SpanLogTally,
} from "../../domain/log-record-budget.js";
import type { Principal } from "../../domain/principal.js";
import { eventFromItem, eventItem } from "../events/event-store.js";
import { hasOffloadedFields } from "../payloads/payload-store.js";
import { writeAllWithRetry } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { documentClient, tableName } from "../table/dynamo-client.js";
import { defineEntity } from "../table/entity.js";
import { eventKey, OTEL_LOG_PREFIX, otelLogKey, otelLogPartition, otelLogTallyKey } from "../table/keys.js";
import { expiryEpochSeconds } from "../table/retention.js";
import { getItem, queryAll, updateItem } from "../table/table-operations.js";

export const OTEL_LOG_ENTITY = "otelLog";
export const OTEL_LOG_TALLY_ENTITY = "otelLogTally";

/** Largest span-own content (JSON bytes) an event is rebuilt from; a larger span carries its messages itself. */
const BASE_BYTES = 8 * 1024;

/** A GenAI event log record to store. */
export interface LogRecordInput {
  readonly traceId: string;
  readonly spanId: string;
  readonly eventName: string;
  /** Unix nanoseconds, decimal text. */
  readonly timeNanos: string;
  readonly position: number;
  readonly messages: LogMessages;
}

/** What a span gives its `llm_decision` itself, before any log record. */
export interface SpanContent {
  readonly toolInput?: JsonObject | undefined;
  readonly toolOutput?: JsonObject | undefined;
  readonly reasoning?: string | undefined;
}

/** A record ready to store: its sort key (what names it among its span's records) and its messages' JSON. */
export interface PreparedLogRecord extends BudgetedRecord {
  readonly record: LogRecordInput;
  readonly messagesJson: string;
}

interface LogItemInput {
  readonly principal: Principal;
  readonly prepared: PreparedLogRecord;
  readonly ttl: number;
}

function sortKeyOf(record: LogRecordInput, messagesJson: string): string {
  const hash = createHash("sha256").update(record.eventName).update(messagesJson).digest("hex");
  return `${record.timeNanos.padStart(20, "0")}#${String(record.position).padStart(6, "0")}#${hash.slice(0, 16)}`;
}

/** The record with its sort key and the size of its messages (serialized once). */
export function prepareLogRecord(record: LogRecordInput): PreparedLogRecord {
  const messagesJson = JSON.stringify(record.messages);
  return {
    record,
    messagesJson,
    id: sortKeyOf(record, messagesJson),
    bytes: Buffer.byteLength(messagesJson, "utf8"),
  };
}

const otelLogEntity = defineEntity<LogMessages, LogItemInput>({
  tag: OTEL_LOG_ENTITY,
  fields: { messagesJson: "string" },
  storageAttributes: ["ttl", "eventName", "messagesBytes"],
  key: ({ principal, prepared }) =>
    otelLogKey(
      otelLogPartition(principal.orgId, principal.environment, prepared.record.traceId, prepared.record.spanId),
      prepared.id,
    ),
  attributes: ({ prepared, ttl }) => ({
    eventName: prepared.record.eventName,
    messagesJson: prepared.messagesJson,
    messagesBytes: prepared.bytes,
    ttl,
  }),
  fromFields: (fields) => JSON.parse(fields.messagesJson as string) as LogMessages,
});

/** Writes the records (a repeat writes the same items); throws when DynamoDB left any unwritten. */
export async function recordLogRecords(
  principal: Principal,
  records: readonly PreparedLogRecord[],
  nowMs: number,
): Promise<void> {
  const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);
  const { unprocessed } = await writeAllWithRetry(
    records.map((prepared) => ({ PutRequest: { Item: otelLogEntity.toItem({ principal, prepared, ttl }) } })),
  );
  if (unprocessed.length > 0) throw new Error(`BatchWriteItem left ${unprocessed.length} log records unwritten`);
}

/** The Query of a span's records, oldest first, and never more of them than a span keeps (read consistently). */
function spanRecordsQuery(principal: Principal, traceId: string, spanId: string) {
  return {
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :logs)",
    ExpressionAttributeValues: {
      ":pk": otelLogPartition(principal.orgId, principal.environment, traceId, spanId),
      ":logs": OTEL_LOG_PREFIX,
    },
    ConsistentRead: true,
    Limit: LIMITS.otlpLogRecordsPerSpan,
  };
}

/** The id a stored record's sort key gives it (as `prepareLogRecord` named it). */
function idOf(item: Record<string, unknown>): string {
  return String(item.SK).slice(OTEL_LOG_PREFIX.length);
}

/** A span's tally item, as stored: what it holds and how many of those its event was last built after. */
export interface StoredSpanTally extends SpanLogTally {
  /** Its records' sizes (bytes of messages), by id. */
  readonly records: ReadonlyMap<string, number>;
  /** How many of the records it lists the span's `llm_decision` was last rebuilt after (0: never). */
  readonly attached: number;
  /** Whether the tally item exists (else it was counted from the records themselves). */
  readonly kept: boolean;
}

function tallyOf(records: ReadonlyMap<string, number>, attached: number, kept: boolean): StoredSpanTally {
  let bytes = 0;
  for (const size of records.values()) bytes += size;
  return { ids: new Set(records.keys()), count: records.size, bytes, records, attached, kept };
}

/** A tally's entry for a record: `<id>=<bytes>` (an id holds no `=`), the same for every export of it. */
function entryOf({ id, bytes }: BudgetedRecord): string {
  return `${id}=${bytes}`;
}

function tallyOfItem(item: Record<string, unknown>): StoredSpanTally {
  const records = new Map<string, number>();
  const entries = item.records instanceof Set ? (item.records as Set<unknown>) : new Set<unknown>();
  for (const entry of entries) {
    const text = String(entry);
    const at = text.lastIndexOf("=");
    records.set(text.slice(0, at), Number(text.slice(at + 1)) || 0);
  }
  return tallyOf(records, typeof item.attached === "number" ? item.attached : 0, true);
}

/**
 * What a span holds of records: its tally item (`OTELLOG#…` / `TALLY`: one `GetItem` of at most
 * `LIMITS.otlpLogRecordsPerSpan` short entries, ~30 KB), not the records. A span without one (records stored
 * before tallies were kept, or by an export that failed between its records and its tally) is counted from
 * its first `LIMITS.otlpLogRecordsPerSpan` records, read as keys and sizes (a record stored before sizes were
 * kept counts as empty here, and the attach bounds the event by the records' text all the same); the caller
 * then keeps the tally (`tallyLogRecords`), so that happens once.
 */
export async function spanLogTally(principal: Principal, traceId: string, spanId: string): Promise<StoredSpanTally> {
  const partition = otelLogPartition(principal.orgId, principal.environment, traceId, spanId);
  const item = await getItem(otelLogTallyKey(partition), { consistent: true });
  if (item !== undefined) return tallyOfItem(item);
  const items = await queryAll(
    { ...spanRecordsQuery(principal, traceId, spanId), ProjectionExpression: "SK, messagesBytes" },
    { limit: LIMITS.otlpLogRecordsPerSpan },
  );
  return tallyOf(
    new Map(items.map((item) => [idOf(item), typeof item.messagesBytes === "number" ? item.messagesBytes : 0])),
    0,
    false,
  );
}

/**
 * Adds records, written already, to their span's tally (a set: adding one again changes nothing, so a
 * retried export counts nothing twice); resolves with how many records the tally lists now.
 */
export async function tallyLogRecords(
  principal: Principal,
  traceId: string,
  spanId: string,
  records: readonly BudgetedRecord[],
  nowMs: number,
): Promise<number> {
  const partition = otelLogPartition(principal.orgId, principal.environment, traceId, spanId);
  const updated = await updateItem({
    Key: otelLogTallyKey(partition),
    UpdateExpression: "ADD #records :records SET #entity = :entity, #ttl = :ttl",
    ExpressionAttributeNames: { "#records": "records", "#entity": "entity", "#ttl": "ttl" },
    ExpressionAttributeValues: {
      ":records": new Set(records.map(entryOf)),
      ":entity": OTEL_LOG_TALLY_ENTITY,
      ":ttl": expiryEpochSeconds(nowMs, principal.retentionDays),
    },
    ReturnValues: "ALL_NEW",
  });
  return updated === undefined ? records.length : tallyOfItem(updated).count;
}

/** Notes on the span's tally that its event was rebuilt after `count` of its records (never lowers it). */
async function markAttached(principal: Principal, traceId: string, spanId: string, count: number): Promise<void> {
  const partition = otelLogPartition(principal.orgId, principal.environment, traceId, spanId);
  try {
    await updateItem({
      Key: otelLogTallyKey(partition),
      UpdateExpression: "SET attached = :count",
      ConditionExpression: "attribute_exists(PK) AND (attribute_not_exists(attached) OR attached < :count)",
      ExpressionAttributeValues: { ":count": count },
    });
  } catch (error) {
    // Marked at as many records or more by another export already.
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * The messages of a span's log records, in the order they were emitted (read consistently), as far as the
 * span's budget goes, and how many records were read (at most `LIMITS.otlpLogRecordsPerSpan`).
 */
async function logMessagesOf(
  principal: Principal,
  traceId: string,
  spanId: string,
): Promise<{ readonly messages: LogMessages[]; readonly read: number }> {
  const items = await queryAll(spanRecordsQuery(principal, traceId, spanId), { limit: LIMITS.otlpLogRecordsPerSpan });
  const sized = items.map((item) => ({
    item,
    id: idOf(item),
    bytes: typeof item.messagesJson === "string" ? Buffer.byteLength(item.messagesJson, "utf8") : 0,
  }));
  const { admitted } = admitLogRecords(EMPTY_TALLY, sized);
  return { messages: admitted.map(({ item }) => otelLogEntity.fromItem(item)), read: items.length };
}

function parsed(text: unknown): JsonObject | undefined {
  return typeof text === "string" ? (JSON.parse(text) as JsonObject) : undefined;
}

/**
 * Attaches the messages of a span's log records to its `llm_decision` (`eventId` of `sessionId`). `content` is
 * the span's own, when the caller has it; else it is read from the event — the content it was first stored
 * with. Nothing happens when the span has no records, when the event holds all of them already, or when the
 * span's own content is too large to rebuild from (its messages are then its own).
 */
export async function attachLogMessages(
  principal: Principal,
  target: { readonly sessionId: string; readonly eventId: string; readonly traceId: string; readonly spanId: string },
  content?: SpanContent,
): Promise<void> {
  await rebuildEvent(principal, target, content);
}

/**
 * `attachLogMessages` for the log route: `tallied` is how many records the span's tally listed before (its
 * records all written before this reads them); once the event is rebuilt (or found built from as many, or
 * not to be rebuilt), the tally notes it, so an export that adds nothing to the span (an exporter's retry)
 * does not rebuild it again. A failure before the note leaves the rebuild to the retry.
 */
export async function attachTalliedLogMessages(
  principal: Principal,
  target: { readonly sessionId: string; readonly eventId: string; readonly traceId: string; readonly spanId: string },
  tallied: number,
): Promise<void> {
  await rebuildEvent(principal, target);
  await markAttached(principal, target.traceId, target.spanId, tallied);
}

async function rebuildEvent(
  principal: Principal,
  target: { readonly sessionId: string; readonly eventId: string; readonly traceId: string; readonly spanId: string },
  content?: SpanContent,
): Promise<void> {
  const { messages: logs, read } = await logMessagesOf(principal, target.traceId, target.spanId);
  if (logs.length === 0) return;
  const key = eventKey(target.sessionId, target.eventId);
  const item = await getItem(key, { consistent: true });
  if (item?.eventType !== "llm_decision" || (typeof item.logCount === "number" && item.logCount >= read)) return;
  const stored = parsed(item.logBase) as SpanContent | undefined;
  const base: SpanContent | undefined =
    content ??
    stored ??
    (hasOffloadedFields(item)
      ? undefined
      : {
          toolInput: parsed(item.toolInputJson),
          toolOutput: parsed(item.toolOutputJson),
          reasoning: typeof item.reasoning === "string" ? item.reasoning : undefined,
        });
  const baseJson = JSON.stringify(base ?? null);
  if (base === undefined || Buffer.byteLength(baseJson, "utf8") > BASE_BYTES) return;
  const event: AgentEvent = { ...eventFromItem(item, true), ...withLogMessages(base, logs) };
  const rebuilt = await eventItem(event, principal.retentionDays, Number(item.ttl), {
    ...(typeof item.fingerprint === "string" ? { fingerprint: item.fingerprint } : {}),
    logBase: baseJson,
  });
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...rebuilt, logCount: read },
        ConditionExpression: "attribute_exists(PK) AND (attribute_not_exists(logCount) OR logCount < :count)",
        ExpressionAttributeValues: { ":count": read },
      }),
    );
  } catch (error) {
    // Another attach, built from as many records or more, got there first.
    if (!isConditionFailure(error)) throw error;
  }
}
