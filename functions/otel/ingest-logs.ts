/**
 * Records the GenAI event log records of one OTLP logs export: the records (one item each, keyed by what they
 * are, so a retried export writes the same items), then per trace the spans they belong to marked on the
 * trace's record — which answers with the model calls of the trace already recorded: their `llm_decision`
 * events get the messages now (store/otel/otel-log-store.ts); a model call recorded later gets them when its span
 * arrives (ingest-spans.ts). No HTTP here.
 */
import type { Principal } from "../domain/principal.js";
import { attachLogMessages, type LogRecordInput, recordLogRecords } from "../store/otel/otel-log-store.js";
import { markLogSpans } from "../store/otel/trace-session-store.js";

/** Traces of a request marked at once. */
const TRACE_CONCURRENCY = 8;

export async function ingestLogRecords(
  principal: Principal,
  records: readonly LogRecordInput[],
  nowMs = Date.now(),
): Promise<void> {
  if (records.length === 0) return;
  await recordLogRecords(principal, records, nowMs);
  const spansByTrace = new Map<string, Set<string>>();
  for (const record of records) {
    const spans = spansByTrace.get(record.traceId) ?? new Set();
    spans.add(record.spanId);
    spansByTrace.set(record.traceId, spans);
  }
  const traces = [...spansByTrace];
  for (let start = 0; start < traces.length; start += TRACE_CONCURRENCY) {
    await Promise.all(
      traces.slice(start, start + TRACE_CONCURRENCY).map(async ([traceId, spans]) => {
        const { sessionId, eventIds } = await markLogSpans(principal, traceId, [...spans], nowMs);
        if (sessionId === undefined) return;
        for (const spanId of spans) {
          const eventId = eventIds.get(spanId);
          if (eventId !== undefined) await attachLogMessages(principal, { sessionId, eventId, traceId, spanId });
        }
      }),
    );
  }
}
