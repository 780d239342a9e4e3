/** What a span keeps of its GenAI event log records (functions/domain/log-record-budget.ts). */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../functions/domain/limits.js";
import {
  admitLogRecords,
  BYTES_PER_SPAN_MESSAGE,
  EMPTY_TALLY,
  LOG_RECORD_ITEM_BYTES,
  RECORDS_PER_SPAN_MESSAGE,
  rebuildBytes,
  type SpanLogTally,
} from "../../functions/domain/log-record-budget.js";

const record = (id: string, bytes = 10) => ({ id, bytes });
const ids = (records: readonly { id: string }[]) => records.map((kept) => kept.id);

function heldOf(count: number, bytes = 0): SpanLogTally {
  return { ids: new Set(Array.from({ length: count }, (_, n) => `held-${n}`)), count, bytes };
}

describe("admitLogRecords", () => {
  it("admits records while the span has room, in order", () => {
    const { admitted, refused } = admitLogRecords(EMPTY_TALLY, [record("a"), record("b")]);
    expect(ids(admitted)).toEqual(["a", "b"]);
    expect(refused).toEqual([]);
  });

  it(`refuses records past ${LIMITS.otlpLogRecordsPerSpan} in the span, naming the limit`, () => {
    const { admitted, refused } = admitLogRecords(heldOf(LIMITS.otlpLogRecordsPerSpan - 1), [
      record("a"),
      record("b"),
      record("c"),
    ]);
    expect(ids(admitted)).toEqual(["a"]);
    expect(refused.map(({ record: { id }, message }) => [id, message])).toEqual([
      ["b", RECORDS_PER_SPAN_MESSAGE],
      ["c", RECORDS_PER_SPAN_MESSAGE],
    ]);
    expect(RECORDS_PER_SPAN_MESSAGE).toBe(
      "A model call (span) keeps at most 500 GenAI event log records; those past them are refused",
    );
  });

  it(`refuses a record that would take the span's messages past ${LIMITS.otlpLogBytesPerSpan} bytes, and every later one of the export`, () => {
    const room = 100;
    const { admitted, refused } = admitLogRecords(heldOf(3, LIMITS.otlpLogBytesPerSpan - room), [
      record("fits", room - 1),
      record("over", 2),
      record("small", 1),
    ]);
    expect(ids(admitted)).toEqual(["fits"]);
    expect(refused.map(({ record: { id }, message }) => [id, message])).toEqual([
      ["over", BYTES_PER_SPAN_MESSAGE],
      ["small", BYTES_PER_SPAN_MESSAGE],
    ]);
    expect(BYTES_PER_SPAN_MESSAGE).toBe(
      "A model call (span) keeps at most 4 MiB of messages from its log records; those past them are refused",
    );
  });

  it("admits a record the span holds already (an exporter's retry) at no cost, even when the span is full", () => {
    const full = heldOf(LIMITS.otlpLogRecordsPerSpan, LIMITS.otlpLogBytesPerSpan);
    const { admitted, refused } = admitLogRecords(full, [record("held-7", 1_000), record("new")]);
    expect(ids(admitted)).toEqual(["held-7"]);
    expect(ids(refused.map((refusal) => refusal.record))).toEqual(["new"]);
  });

  it("counts a record given twice once", () => {
    const { admitted, refused } = admitLogRecords(heldOf(LIMITS.otlpLogRecordsPerSpan - 1), [record("a"), record("a")]);
    expect(ids(admitted)).toEqual(["a", "a"]);
    expect(refused).toEqual([]);
  });
});

describe("rebuildBytes", () => {
  it("counts a span's messages and each record's keys: a full span's rebuild fits the export's read-back budget three times", () => {
    expect(rebuildBytes({ count: 2, bytes: 1_000 })).toBe(1_000 + 2 * LOG_RECORD_ITEM_BYTES);
    const full = rebuildBytes({ count: LIMITS.otlpLogRecordsPerSpan, bytes: LIMITS.otlpLogBytesPerSpan });
    expect(Math.floor(LIMITS.otlpLogRebuildBytesPerExport / full)).toBe(3);
    expect(4 * LIMITS.otlpLogBytesPerSpan).toBe(LIMITS.otlpLogRebuildBytesPerExport);
  });
});
