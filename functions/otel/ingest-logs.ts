/**
 * Records the GenAI event log records of one OTLP logs export: per span, what the span holds is read and the
 * records it still has room for are kept (domain/log-record-budget.ts; the others are refused, and nothing of
 * them is written); the records kept are written (one item each, keyed by what they are, so a retried export
 * writes the same items), then per trace the spans they belong to marked on the trace's record — which
 * answers with the model calls of the trace already recorded: their `llm_decision` events get the messages
 * now (store/otel/otel-log-store.ts); a model call recorded later gets them when its span arrives
 * (ingest-spans.ts). No HTTP here.
 */
import { LIMITS } from "../domain/limits.js";
import { admitLogRecords, REBUILD_BUDGET_MESSAGE, rebuildBytes } from "../domain/log-record-budget.js";
import type { Principal } from "../domain/principal.js";
import {
  attachTalliedLogMessages,
  type LogRecordInput,
  type PreparedLogRecord,
  prepareLogRecord,
  recordLogRecords,
  type StoredSpanTally,
  spanLogTally,
  tallyLogRecords,
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

/** A span of the export: its records in it, and what admission decided of them. */
interface SpanWork {
  readonly traceId: string;
  readonly spanId: string;
  readonly tally: StoredSpanTally;
  /** Its records in the export that it does not hold yet and has room for: to write and tally. */
  readonly fresh: readonly PreparedLogRecord[];
  /** Its event is to be rebuilt (new records, or records its event was not yet rebuilt after). */
  readonly rebuild: boolean;
}

/**
 * What each span of the export has room for (the records it holds already admitted again at no cost: an
 * exporter's retry), and the refusals of the others. A span is rebuilt when the export adds to it or its
 * tally lists records its event was not rebuilt after (an export that failed before the rebuild); the
 * rebuilds of one export read back at most `LIMITS.otlpLogRebuildBytesPerExport` of records, spans taken in
 * the export's order: the new records of a span past it are refused, a pending rebuild is left to a later
 * export of the span.
 */
async function admitted(
  principal: Principal,
  traces: ReadonlyMap<string, ReadonlyMap<string, readonly PreparedLogRecord[]>>,
): Promise<{ spans: SpanWork[]; refused: LogRefusal[] }> {
  const ofSpans = [...traces].flatMap(([traceId, bySpanId]) =>
    [...bySpanId].map(([spanId, records]) => ({ traceId, spanId, records })),
  );
  const tallies = new Map<(typeof ofSpans)[number], StoredSpanTally>();
  await inChunks(ofSpans, async (span) => {
    tallies.set(span, await spanLogTally(principal, span.traceId, span.spanId));
  });
  const spans: SpanWork[] = [];
  const refused: LogRefusal[] = [];
  let budget = LIMITS.otlpLogRebuildBytesPerExport;
  for (const span of ofSpans) {
    const tally = tallies.get(span) ?? (await spanLogTally(principal, span.traceId, span.spanId));
    const admission = admitLogRecords(tally, span.records);
    refused.push(...admission.refused.map(({ message }) => ({ message })));
    let fresh = [...new Map(admission.admitted.filter(({ id }) => !tally.ids.has(id)).map((r) => [r.id, r])).values()];
    const cost = rebuildBytes({
      count: tally.count + fresh.length,
      bytes: tally.bytes + fresh.reduce((sum, record) => sum + record.bytes, 0),
    });
    const wanted = fresh.length > 0 || tally.attached < tally.count;
    const rebuild = wanted && cost <= budget;
    if (rebuild) budget -= cost;
    else if (wanted) {
      refused.push(...fresh.map(() => ({ message: REBUILD_BUDGET_MESSAGE })));
      fresh = [];
    }
    spans.push({ traceId: span.traceId, spanId: span.spanId, tally, fresh, rebuild });
  }
  return { spans, refused };
}

/**
 * Records what the spans have room for; resolves with the refusals of the rest. The work of one export is
 * bounded whatever the spans hold: per span (at most 1,000), one `GetItem` of its tally (≤ ~30 KB; a span
 * without one, a Query of its first 500 records' keys and sizes, once); the rebuilds read back at most
 * `LIMITS.otlpLogRebuildBytesPerExport` (16 MiB) of records in all, plus each rebuilt span's event (one
 * `GetItem`). A span the export adds nothing to, whose event was rebuilt after all its records, costs its
 * tally's read only.
 */
export async function ingestLogRecords(
  principal: Principal,
  records: readonly LogRecordInput[],
  nowMs = Date.now(),
): Promise<readonly LogRefusal[]> {
  if (records.length === 0) return [];
  const { spans, refused } = await admitted(principal, bySpan(records.map(prepareLogRecord)));
  await recordLogRecords(
    principal,
    spans.flatMap(({ fresh }) => fresh),
    nowMs,
  );
  // Then each span's tally (the records are written first, so a tally lists only records stored); a span
  // counted from its records (no tally yet) keeps the tally of what it holds.
  const tallied = new Map<SpanWork, number>();
  await inChunks(spans, async (span) => {
    const entries = [
      ...(span.tally.kept ? [] : [...span.tally.records].map(([id, bytes]) => ({ id, bytes }))),
      ...span.fresh,
    ];
    tallied.set(
      span,
      entries.length > 0
        ? await tallyLogRecords(principal, span.traceId, span.spanId, entries, nowMs)
        : span.tally.count,
    );
  });
  const toRebuild = new Map<string, SpanWork[]>();
  for (const span of spans) {
    if (span.rebuild) toRebuild.set(span.traceId, [...(toRebuild.get(span.traceId) ?? []), span]);
  }
  await inChunks([...toRebuild], async ([traceId, ofTrace]) => {
    const { sessionId, eventIds } = await markLogSpans(
      principal,
      traceId,
      ofTrace.map(({ spanId }) => spanId),
      nowMs,
    );
    if (sessionId === undefined) return;
    for (const span of ofTrace) {
      const eventId = eventIds.get(span.spanId);
      if (eventId === undefined) continue;
      await attachTalliedLogMessages(
        principal,
        { sessionId, eventId, traceId, spanId: span.spanId },
        tallied.get(span) ?? span.tally.count,
      );
    }
  });
  return refused;
}
