/**
 * Records the GenAI event log records of one OTLP logs export: per span, what the span holds is read and the
 * records it still has room for are kept (domain/log-record-budget.ts; the others are refused, and nothing of
 * them is written); the records kept are written (one item each, keyed by what they are, so a retried export
 * writes the same items), then per trace the spans they belong to marked on the trace's record — which
 * answers with the model calls of the trace already recorded: their `llm_decision` events get the messages
 * now (store/otel/otel-log-store.ts); a model call recorded later gets them when its span arrives
 * (ingest-spans.ts). No HTTP here.
 */
import { admitLogRecords } from "../domain/log-record-budget.js";
import type { Principal } from "../domain/principal.js";
import {
  attachLogMessages,
  type LogRecordInput,
  type PreparedLogRecord,
  prepareLogRecord,
  recordLogRecords,
  spanLogTally,
} from "../store/otel/otel-log-store.js";
import { markLogSpans } from "../store/otel/trace-session-store.js";
import type { LogRefusal } from "./otlp-logs.js";

/** Traces (and spans) of a request read or marked at once. */
const CONCURRENCY = 8;

async function inChunks<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += CONCURRENCY) {
    await Promise.all(items.slice(start, start + CONCURRENCY).map(work));
  }
}

/** The records grouped by trace, then by span, in request order. */
function bySpan(records: readonly PreparedLogRecord[]): Map<string, Map<string, PreparedLogRecord[]>> {
  const traces = new Map<string, Map<string, PreparedLogRecord[]>>();
  for (const prepared of records) {
    const spans = traces.get(prepared.record.traceId) ?? new Map<string, PreparedLogRecord[]>();
    const ofSpan = spans.get(prepared.record.spanId) ?? [];
    ofSpan.push(prepared);
    spans.set(prepared.record.spanId, ofSpan);
    traces.set(prepared.record.traceId, spans);
  }
  return traces;
}

/**
 * The records each span has room for (those it holds already included: an exporter's retry), and the
 * refusals of the others. Records already stored are not written again.
 */
async function admitted(
  principal: Principal,
  traces: ReadonlyMap<string, ReadonlyMap<string, readonly PreparedLogRecord[]>>,
): Promise<{ toWrite: PreparedLogRecord[]; kept: Map<string, Set<string>>; refused: LogRefusal[] }> {
  const spans = [...traces].flatMap(([traceId, bySpanId]) =>
    [...bySpanId].map(([spanId, records]) => ({ traceId, spanId, records })),
  );
  const toWrite: PreparedLogRecord[] = [];
  const kept = new Map<string, Set<string>>();
  const refused: LogRefusal[] = [];
  await inChunks(spans, async ({ traceId, spanId, records }) => {
    const held = await spanLogTally(principal, traceId, spanId);
    const admission = admitLogRecords(held, records);
    const fresh = new Map(admission.admitted.filter(({ id }) => !held.ids.has(id)).map((kept) => [kept.id, kept]));
    toWrite.push(...fresh.values());
    refused.push(...admission.refused.map(({ message }) => ({ message })));
    if (admission.admitted.length > 0) kept.set(traceId, (kept.get(traceId) ?? new Set()).add(spanId));
  });
  return { toWrite, kept, refused };
}

/** Records what the spans have room for; resolves with the refusals of the rest. */
export async function ingestLogRecords(
  principal: Principal,
  records: readonly LogRecordInput[],
  nowMs = Date.now(),
): Promise<readonly LogRefusal[]> {
  if (records.length === 0) return [];
  const { toWrite, kept, refused } = await admitted(principal, bySpan(records.map(prepareLogRecord)));
  await recordLogRecords(principal, toWrite, nowMs);
  await inChunks([...kept], async ([traceId, spans]) => {
    const { sessionId, eventIds } = await markLogSpans(principal, traceId, [...spans], nowMs);
    if (sessionId === undefined) return;
    for (const spanId of spans) {
      const eventId = eventIds.get(spanId);
      if (eventId !== undefined) await attachLogMessages(principal, { sessionId, eventId, traceId, spanId });
    }
  });
  return refused;
}
