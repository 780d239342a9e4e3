/**
 * POST /api/otel/v1/logs keeps a bounded number and size of GenAI event log records per span (model call):
 * `LIMITS.otlpLogRecordsPerSpan` records and `LIMITS.otlpLogBytesPerSpan` bytes of messages, across exports.
 * Records past them are refused in `partialSuccess` (counted, with the reason) and not stored; the records
 * kept and the model call's `llm_decision` built from them stay whole; every read of a span's records is a
 * Query bounded by `Limit`. The review's reproduction (five exports of 1,000 records to one span grew the
 * event's input to 20 MB at 4.4 s a request), scaled for a test.
 */
import { randomBytes } from "node:crypto";
import { QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../functions/domain/limits.js";
import { prepareLogRecord, recordLogRecords, tallyLogRecords } from "../../functions/store/otel/otel-log-store.js";
import { markLogSpans } from "../../functions/store/otel/trace-session-store.js";
import { writeAllWithRetry } from "../../functions/store/table/batch-operations.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { otelLogKey, otelLogPartition } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, readAllEvents, startTestApi } from "../support/fixtures.js";
import { principalFor } from "../support/seed.js";

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

type Json = Record<string, unknown>;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
/** Unix nanoseconds, as text, `offset` nanoseconds after a minute ago (`base`). */
const nanosAt = (base: number, offset: number) => `${BigInt(base) * 1_000_000n + BigInt(offset)}`;

/** The Query requests the service sends for a span's log records (its partition), as sent. */
const logQueries: QueryCommandInput[] = [];
documentClient.middlewareStack.add(
  (next, context) =>
    async function recordLogQuery(args) {
      const input = args.input as QueryCommandInput;
      const partition = input.ExpressionAttributeValues?.[":pk"];
      if (context.commandName === "QueryCommand" && typeof partition === "string" && partition.startsWith("OTELLOG#"))
        logQueries.push(input);
      return next(args);
    },
  { step: "initialize", name: "otelLogQueryRecorder" },
);

/** Read capacity the service consumed, by command, with the partition it read (every command asks for it). */
const reads: { command: string; partition: string; units: number; items: number }[] = [];
documentClient.middlewareStack.add(
  (next, context) =>
    async function recordReadCapacity(args) {
      const input = args.input as Record<string, unknown> & {
        Key?: Record<string, unknown>;
        ExpressionAttributeValues?: Record<string, unknown>;
      };
      input.ReturnConsumedCapacity = "TOTAL";
      const result = await next(args);
      const command = context.commandName ?? "";
      if (command === "GetItemCommand" || command === "GetCommand" || command === "QueryCommand") {
        const output = result.output as {
          ConsumedCapacity?: { CapacityUnits?: number };
          Items?: unknown[];
          Item?: unknown;
        };
        reads.push({
          command,
          partition: String(input.Key?.PK ?? input.ExpressionAttributeValues?.[":pk"] ?? ""),
          units: output.ConsumedCapacity?.CapacityUnits ?? 0,
          items: output.Items?.length ?? (output.Item === undefined ? 0 : 1),
        });
      }
      return result;
    },
  { step: "initialize", name: "readCapacityRecorder" },
);

/** An export of one `chat` model call span (the root of its trace), without messages of its own. */
async function exportChatSpan(key: string, traceId: string, spanId: string): Promise<void> {
  const start = Date.now() - 120_000;
  const span = {
    traceId,
    spanId,
    name: "chat gpt-4o",
    kind: 3,
    startTimeUnixNano: nanosAt(start, 0),
    endTimeUnixNano: nanosAt(start + 1_000, 0),
    attributes: [
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "gen_ai.request.model", value: { stringValue: "gpt-4o" } },
    ],
  };
  const response = await call(api, "POST", "/api/otel/v1/traces", {
    key,
    body: { resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [span] }] }] },
  });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({});
}

/** A `gen_ai.user.message` record of the span, the `n`-th it emitted, whose content is `content`. */
function userMessage(traceId: string, spanId: string, base: number, n: number, content: string) {
  return {
    timeUnixNano: nanosAt(base, n),
    traceId,
    spanId,
    eventName: "gen_ai.user.message",
    body: { kvlistValue: { values: [{ key: "content", value: { stringValue: content } }] } },
  };
}

async function exportLogs(key: string, records: readonly unknown[]) {
  return call(api, "POST", "/api/otel/v1/logs", {
    key,
    body: { resourceLogs: [{ resource: {}, scopeLogs: [{ logRecords: records }] }] },
  });
}

/** The `llm_decision` of the key's one session (one trace, one model call), through the read API. */
async function modelCallOf(key: string): Promise<{ sessionId: string; event: Json }> {
  const sessions = await call(api, "GET", "/api/sdk/sessions", { key });
  expect(sessions.status).toBe(200);
  const items = sessions.body.items as Json[];
  expect(items).toHaveLength(1);
  const sessionId = String(items[0]?.id);
  const decisions = (await readAllEvents(api, key, sessionId)).events.filter(
    (event) => event.eventType === "llm_decision",
  );
  expect(decisions).toHaveLength(1);
  return { sessionId, event: decisions[0] as Json };
}

/** The model call's `toolInput`, whole, through the field route, and its size in bytes. */
async function toolInputOf(key: string): Promise<{ text: string; input: { messages?: Json[] } }> {
  const { sessionId, event } = await modelCallOf(key);
  const field = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events/${String(event.id)}/toolInput`, {
    key,
  });
  expect(field.status).toBe(200);
  return { text: field.text, input: JSON.parse(field.text) as { messages?: Json[] } };
}

/** How many records of the span are stored (its partition, read whole: a test may). */
async function storedRecordCount(orgId: string, traceId: string, spanId: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :logs)",
        ExpressionAttributeValues: { ":pk": otelLogPartition(orgId, "live", traceId, spanId), ":logs": "LOG#" },
        Select: "COUNT",
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return count;
}

const contents = (messages: readonly Json[] | undefined) => (messages ?? []).map((message) => message.content);

describe("log records per span", () => {
  it(`keeps at most ${LIMITS.otlpLogRecordsPerSpan} records of a span across exports; those past it are refused in partialSuccess and not stored, the others intact`, async () => {
    const owner = await createTestKey();
    const traceId = hex(16);
    const spanId = hex(8);
    const otherSpanId = hex(8);
    await exportChatSpan(owner.key, traceId, spanId);
    const base = Date.now() - 60_000;
    const records = Array.from({ length: 600 }, (_, n) => userMessage(traceId, spanId, base, n, `message ${n}`));
    const ofOtherSpan = Array.from({ length: 20 }, (_, n) => userMessage(traceId, otherSpanId, base, n, `other ${n}`));

    const first = await exportLogs(owner.key, records.slice(0, 300));
    const second = await exportLogs(owner.key, [...records.slice(300, 600), ...ofOtherSpan]);
    // An exporter's retry of the first export: records the span holds already are accepted again.
    const retried = await exportLogs(owner.key, records.slice(0, 300));

    expect([first.status, second.status, retried.status]).toEqual([200, 200, 200]);
    expect([first.body, retried.body]).toEqual([{}, {}]);
    expect(second.body).toEqual({
      partialSuccess: {
        rejectedLogRecords: "100",
        errorMessage:
          "100 log records refused: A model call (span) keeps at most 500 GenAI event log records; those past them are refused",
      },
    });
    const { input } = await toolInputOf(owner.key);
    expect(contents(input.messages)).toEqual(records.slice(0, 500).map((_, n) => `message ${n}`));
    expect(await storedRecordCount(owner.orgId, traceId, spanId)).toBe(LIMITS.otlpLogRecordsPerSpan);
    // Another span of the same export has its own room.
    expect(await storedRecordCount(owner.orgId, traceId, otherSpanId)).toBe(20);
  }, 120_000);

  it(`keeps at most ${LIMITS.otlpLogBytesPerSpan / 1024 / 1024} MiB of a span's messages: the model call's input stays within the ${LIMITS.toolPayloadBytes / 1024 / 1024} MiB field limit`, async () => {
    const owner = await createTestKey();
    const traceId = hex(16);
    const spanId = hex(8);
    await exportChatSpan(owner.key, traceId, spanId);
    const base = Date.now() - 60_000;
    // 200 KiB of content each: 20 fit in 4 MiB, the 21st does not; three exports of 12 would be 7.2 MB.
    const records = Array.from({ length: 36 }, (_, n) =>
      userMessage(traceId, spanId, base, n, `${String(n).padStart(2, "0")}:${"x".repeat(200 * 1024)}`),
    );

    const first = await exportLogs(owner.key, records.slice(0, 12));
    const second = await exportLogs(owner.key, records.slice(12, 24));
    const third = await exportLogs(owner.key, records.slice(24, 36));

    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect(first.body).toEqual({});
    const refusal =
      "A model call (span) keeps at most 4 MiB of messages from its log records; those past them are refused";
    expect(second.body).toEqual({
      partialSuccess: { rejectedLogRecords: "4", errorMessage: `4 log records refused: ${refusal}` },
    });
    expect(third.body).toEqual({
      partialSuccess: { rejectedLogRecords: "12", errorMessage: `12 log records refused: ${refusal}` },
    });
    const { text, input } = await toolInputOf(owner.key);
    expect(Buffer.byteLength(text, "utf8")).toBeLessThanOrEqual(LIMITS.toolPayloadBytes);
    expect(contents(input.messages).map((content) => String(content).slice(0, 3))).toEqual(
      Array.from({ length: 20 }, (_, n) => `${String(n).padStart(2, "0")}:`),
    );
    expect(await storedRecordCount(owner.orgId, traceId, spanId)).toBe(20);
  }, 120_000);

  it("reads a span's records with a bounded Query: a span holding more (stored before the limit) gives its model call the first only, and takes no more", async () => {
    const owner = await createTestKey();
    const traceId = hex(16);
    const spanId = hex(8);
    const partition = otelLogPartition(owner.orgId, "live", traceId, spanId);
    const held = LIMITS.otlpLogRecordsPerSpan + 50;
    const base = Date.now() - 60_000;
    // Written as the log route wrote records before it kept a budget (no size attribute).
    const { unprocessed } = await writeAllWithRetry(
      Array.from({ length: held }, (_, n) => ({
        PutRequest: {
          Item: {
            ...otelLogKey(partition, `${nanosAt(base, n).padStart(20, "0")}#000000#${hex(8)}`),
            entity: "otelLog",
            eventName: "gen_ai.user.message",
            messagesJson: JSON.stringify({ input: [{ role: "user", content: `held ${n}` }] }),
            ttl: Math.floor(Date.now() / 1000) + 86_400,
          },
        },
      })),
    );
    expect(unprocessed).toEqual([]);
    await markLogSpans(principalFor(owner.orgId), traceId, [spanId], Date.now());
    logQueries.splice(0);

    // The span arrives after its records (the trace route attaches them), then one record more.
    await exportChatSpan(owner.key, traceId, spanId);
    const logs = await exportLogs(owner.key, [userMessage(traceId, spanId, base, held, "one more")]);
    const ofSpan = logQueries.filter((query) => query.ExpressionAttributeValues?.[":pk"] === partition);

    expect(logs.status).toBe(200);
    expect(logs.body).toEqual({
      partialSuccess: {
        rejectedLogRecords: "1",
        errorMessage:
          "1 log record refused: A model call (span) keeps at most 500 GenAI event log records; those past them are refused",
      },
    });
    const { input } = await toolInputOf(owner.key);
    expect(contents(input.messages)).toEqual(
      Array.from({ length: LIMITS.otlpLogRecordsPerSpan }, (_, n) => `held ${n}`),
    );
    expect(await storedRecordCount(owner.orgId, traceId, spanId)).toBe(held);
    // The trace route's read of the records to attach, the log route's read of what the span holds.
    expect(ofSpan.length).toBeGreaterThanOrEqual(2);
    for (const query of ofSpan) expect(query.Limit).toBeLessThanOrEqual(LIMITS.otlpLogRecordsPerSpan);
  }, 120_000);

  it("an export that re-sends records its spans hold reads each span's tally, not its records, and rebuilds no event", async () => {
    const owner = await createTestKey();
    const spans = Array.from({ length: 5 }, () => ({ traceId: hex(16), spanId: hex(8) }));
    for (const { traceId, spanId } of spans) await exportChatSpan(owner.key, traceId, spanId);
    const base = Date.now() - 60_000;
    // An export of one short record per span, then 8 records of 100 KiB per span (800 KiB each, 4 MB).
    const probe = spans.map(({ traceId, spanId }) => userMessage(traceId, spanId, base, 100, "first"));
    const fill = spans.flatMap(({ traceId, spanId }) =>
      Array.from({ length: 8 }, (_, n) => userMessage(traceId, spanId, base, n, `${n}:${"y".repeat(100 * 1024)}`)),
    );
    const first = await exportLogs(owner.key, probe);
    const filled = await exportLogs(owner.key, fill);
    expect([first.status, filled.status]).toEqual([200, 200]);
    expect([first.body, filled.body]).toEqual([{}, {}]);
    reads.splice(0);
    logQueries.splice(0);

    // The first export sent again (an exporter's retry, or anyone): one record each span holds already.
    const again = await exportLogs(owner.key, probe);
    const ofLogs = reads.filter(({ partition }) => partition.startsWith("OTELLOG#"));
    const ofEvents = reads.filter(({ partition }) => partition.startsWith("SESSION#"));

    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
    // One small read per span (its tally), no Query of its records, no event read to rebuild: before, each span
    // cost two Queries reading its 800 KiB (~200 units each, consistent) and a read of its event.
    expect(logQueries).toEqual([]);
    expect(ofLogs.map(({ command }) => command)).toEqual(spans.map(() => "GetItemCommand"));
    for (const { units } of ofLogs) expect(units).toBeLessThanOrEqual(1);
    expect(ofEvents).toEqual([]);
    const total = reads.reduce((sum, { units }) => sum + units, 0);
    expect(total).toBeLessThanOrEqual(spans.length + 10);
    for (const { traceId, spanId } of spans) expect(await storedRecordCount(owner.orgId, traceId, spanId)).toBe(9);
  }, 120_000);

  it("an export that failed after writing its records, before rebuilding the event, is completed by its retry", async () => {
    const owner = await createTestKey();
    const traceId = hex(16);
    const spanId = hex(8);
    await exportChatSpan(owner.key, traceId, spanId);
    const base = Date.now() - 60_000;
    const records = Array.from({ length: 3 }, (_, n) => userMessage(traceId, spanId, base, n, `kept ${n}`));
    const principal = principalFor(owner.orgId);
    // As the log route leaves them when it fails after the tally: records written and tallied, event not rebuilt.
    const prepared = records.map((record, n) =>
      prepareLogRecord({
        traceId,
        spanId,
        eventName: "gen_ai.user.message",
        timeNanos: record.timeUnixNano,
        position: n,
        messages: { input: [{ role: "user", content: `kept ${n}` }] },
      }),
    );
    await recordLogRecords(principal, prepared, Date.now());
    await tallyLogRecords(principal, traceId, spanId, prepared, Date.now());
    expect(contents((await toolInputOf(owner.key)).input.messages)).toEqual([]);

    const retried = await exportLogs(owner.key, records);

    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({});
    expect(contents((await toolInputOf(owner.key)).input.messages)).toEqual(["kept 0", "kept 1", "kept 2"]);
    expect(await storedRecordCount(owner.orgId, traceId, spanId)).toBe(3);
  }, 120_000);

  it(`reads back at most ${LIMITS.otlpLogRebuildBytesPerExport / 1024 / 1024} MiB of records per export to rebuild events: the new records of the spans past it are refused`, async () => {
    const owner = await createTestKey();
    const spans = Array.from({ length: 5 }, () => ({ traceId: hex(16), spanId: hex(8) }));
    for (const { traceId, spanId } of spans) await exportChatSpan(owner.key, traceId, spanId);
    const base = Date.now() - 60_000;
    // 17 records of 200 KiB per span (3.4 MiB each), one export per span: 5 spans hold 17 MiB.
    for (const { traceId, spanId } of spans) {
      const filled = await exportLogs(
        owner.key,
        Array.from({ length: 17 }, (_, n) => userMessage(traceId, spanId, base, n, `${n}:${"z".repeat(200 * 1024)}`)),
      );
      expect(filled.status).toBe(200);
      expect(filled.body).toEqual({});
    }

    // One short new record per span: four spans' rebuilds fit in 16 MiB, the fifth's does not.
    const added = await exportLogs(
      owner.key,
      spans.map(({ traceId, spanId }) => userMessage(traceId, spanId, base, 100, "one more")),
    );

    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      partialSuccess: {
        rejectedLogRecords: "1",
        errorMessage:
          "1 log record refused: An export rebuilds at most 16 MiB of its model calls' log records; the new records of the calls past it are refused: lower OTEL_BLRP_MAX_EXPORT_BATCH_SIZE",
      },
    });
    const counts = await Promise.all(
      spans.map(({ traceId, spanId }) => storedRecordCount(owner.orgId, traceId, spanId)),
    );
    expect(counts).toEqual([18, 18, 18, 18, 17]);
  }, 120_000);
});
