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
 */
import { createHash } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { AgentEvent } from "../../domain/event.js";
import { type LogMessages, withLogMessages } from "../../domain/genai-log-events.js";
import type { JsonObject } from "../../domain/json.js";
import type { Principal } from "../../domain/principal.js";
import { eventFromItem, eventItem } from "../events/event-store.js";
import { hasOffloadedFields } from "../payloads/payload-store.js";
import { writeAllWithRetry } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { documentClient, tableName } from "../table/dynamo-client.js";
import { defineEntity } from "../table/entity.js";
import { eventKey, otelLogKey, otelLogPartition } from "../table/keys.js";
import { expiryEpochSeconds } from "../table/retention.js";
import { getItem, queryAll } from "../table/table-operations.js";

export const OTEL_LOG_ENTITY = "otelLog";

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

interface LogItemInput {
  readonly principal: Principal;
  readonly record: LogRecordInput;
  readonly ttl: number;
}

function sortKeyOf(record: LogRecordInput): string {
  const hash = createHash("sha256").update(record.eventName).update(JSON.stringify(record.messages)).digest("hex");
  return `${record.timeNanos.padStart(20, "0")}#${String(record.position).padStart(6, "0")}#${hash.slice(0, 16)}`;
}

const otelLogEntity = defineEntity<LogMessages, LogItemInput>({
  tag: OTEL_LOG_ENTITY,
  fields: { messagesJson: "string" },
  storageAttributes: ["ttl", "eventName"],
  key: ({ principal, record }) =>
    otelLogKey(
      otelLogPartition(principal.orgId, principal.environment, record.traceId, record.spanId),
      sortKeyOf(record),
    ),
  attributes: ({ record, ttl }) => ({
    eventName: record.eventName,
    messagesJson: JSON.stringify(record.messages),
    ttl,
  }),
  fromFields: (fields) => JSON.parse(fields.messagesJson as string) as LogMessages,
});

/** Writes the records (a repeat writes the same items); throws when DynamoDB left any unwritten. */
export async function recordLogRecords(
  principal: Principal,
  records: readonly LogRecordInput[],
  nowMs: number,
): Promise<void> {
  const ttl = expiryEpochSeconds(nowMs, principal.retentionDays);
  const { unprocessed } = await writeAllWithRetry(
    records.map((record) => ({ PutRequest: { Item: otelLogEntity.toItem({ principal, record, ttl }) } })),
  );
  if (unprocessed.length > 0) throw new Error(`BatchWriteItem left ${unprocessed.length} log records unwritten`);
}

/** The messages of a span's log records, in the order they were emitted (read consistently). */
export async function logMessagesOf(principal: Principal, traceId: string, spanId: string): Promise<LogMessages[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": otelLogPartition(principal.orgId, principal.environment, traceId, spanId) },
    ConsistentRead: true,
  });
  return items.map((item) => otelLogEntity.fromItem(item));
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
  const logs = await logMessagesOf(principal, target.traceId, target.spanId);
  if (logs.length === 0) return;
  const key = eventKey(target.sessionId, target.eventId);
  const item = await getItem(key, { consistent: true });
  if (item?.eventType !== "llm_decision" || (typeof item.logCount === "number" && item.logCount >= logs.length)) return;
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
        Item: { ...rebuilt, logCount: logs.length },
        ConditionExpression: "attribute_exists(PK) AND (attribute_not_exists(logCount) OR logCount < :count)",
        ExpressionAttributeValues: { ":count": logs.length },
      }),
    );
  } catch (error) {
    // Another attach, built from as many records or more, got there first.
    if (!isConditionFailure(error)) throw error;
  }
}
