/**
 * What one span (model call) keeps of its GenAI event log records: at most `LIMITS.otlpLogRecordsPerSpan`
 * records holding at most `LIMITS.otlpLogBytesPerSpan` bytes of messages, across every export. Its
 * `llm_decision` is rebuilt from all of them, so this bounds both the event's size and the work of each
 * rebuild. Pure.
 */
import { LIMITS } from "./limits.js";

/** A log record as the budget sees it: what names it (its sort key) and the size of its messages. */
export interface BudgetedRecord {
  readonly id: string;
  /** Bytes of its messages' JSON. */
  readonly bytes: number;
}

/** What a span holds already: its records' ids, how many and their bytes. */
export interface SpanLogTally {
  readonly ids: ReadonlySet<string>;
  readonly count: number;
  readonly bytes: number;
}

export const EMPTY_TALLY: SpanLogTally = { ids: new Set(), count: 0, bytes: 0 };

/** What a stored log record weighs besides its messages, as a rebuild's read counts it (keys, name, TTL). */
export const LOG_RECORD_ITEM_BYTES = 256;

/** The bytes a rebuild of a span's event reads back: its records, messages and keys. */
export function rebuildBytes(tally: Pick<SpanLogTally, "count" | "bytes">): number {
  return tally.bytes + tally.count * LOG_RECORD_ITEM_BYTES;
}

export const REBUILD_BUDGET_MESSAGE = `An export rebuilds at most ${LIMITS.otlpLogRebuildBytesPerExport / 1024 / 1024} MiB of its model calls' log records; the new records of the calls past it are refused: lower OTEL_BLRP_MAX_EXPORT_BATCH_SIZE`;

export const RECORDS_PER_SPAN_MESSAGE = `A model call (span) keeps at most ${LIMITS.otlpLogRecordsPerSpan} GenAI event log records; those past them are refused`;
export const BYTES_PER_SPAN_MESSAGE = `A model call (span) keeps at most ${LIMITS.otlpLogBytesPerSpan / 1024 / 1024} MiB of messages from its log records; those past them are refused`;

/** The records of a span kept and those refused (each with the reason), in the order given. */
export interface Admission<T extends BudgetedRecord> {
  readonly admitted: readonly T[];
  readonly refused: readonly { readonly record: T; readonly message: string }[];
}

/**
 * Admits `incoming` records of one span, in order, onto what it holds: a record it holds already (an
 * exporter's retry) costs nothing and is admitted; any other is admitted while the span's count and bytes
 * stay within the limits. Once one is refused, the later records of `incoming` are refused too, so the
 * messages kept never skip one of the export's.
 */
export function admitLogRecords<T extends BudgetedRecord>(held: SpanLogTally, incoming: readonly T[]): Admission<T> {
  const admitted: T[] = [];
  const refused: { record: T; message: string }[] = [];
  const seen = new Set(held.ids);
  let count = held.count;
  let bytes = held.bytes;
  let closed: string | undefined;
  for (const record of incoming) {
    if (seen.has(record.id)) {
      admitted.push(record);
      continue;
    }
    closed ??=
      count + 1 > LIMITS.otlpLogRecordsPerSpan
        ? RECORDS_PER_SPAN_MESSAGE
        : bytes + record.bytes > LIMITS.otlpLogBytesPerSpan
          ? BYTES_PER_SPAN_MESSAGE
          : undefined;
    if (closed !== undefined) {
      refused.push({ record, message: closed });
      continue;
    }
    seen.add(record.id);
    count += 1;
    bytes += record.bytes;
    admitted.push(record);
  }
  return { admitted, refused };
}
