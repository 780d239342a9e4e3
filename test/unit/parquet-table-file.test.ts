/** One table's Parquet file (functions/export/parquet-table-file.ts), read back with hyparquet. */
import { zstdDecompressSync } from "node:zlib";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import { EXPORT_TABLES } from "../../functions/export/export-tables.js";
import { type ExportRow, ParquetTableFile, ROW_GROUP_ROWS } from "../../functions/export/parquet-table-file.js";

function bufferSink() {
  const chunks: Uint8Array[] = [];
  return {
    chunks,
    async write(bytes: Uint8Array) {
      chunks.push(bytes);
    },
    bytes(): ArrayBuffer {
      const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
      let at = 0;
      for (const chunk of chunks) {
        out.set(chunk, at);
        at += chunk.length;
      }
      return out.buffer;
    },
  };
}

const compressors = { ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)) };

function conversation(i: number): ExportRow {
  return {
    conversation_id: `c-${i}`,
    agent_name: i % 2 === 0 ? "__proto__" : "agent",
    user_id: `u-${i % 7}`,
    started_at: new Date(Date.UTC(2026, 10, 27, 0, 0, 0, i)),
    last_run_at: new Date(Date.UTC(2026, 10, 27, 1)),
    run_count: i,
  };
}

describe("ParquetTableFile", () => {
  it("streams row groups to the sink and reads back every value", async () => {
    const sink = bufferSink();
    const file = new ParquetTableFile("conversations", sink);
    const count = ROW_GROUP_ROWS + 10;
    for (let i = 0; i < count; i++) await file.add(conversation(i));
    // The first row group went to the sink before the file was finished.
    expect(sink.chunks.length).toBeGreaterThan(0);
    expect(await file.finish()).toBe(count);

    const bytes = sink.bytes();
    const metadata = parquetMetadata(bytes);
    expect(metadata.row_groups).toHaveLength(2);
    expect(metadata.schema.slice(1).map((element) => element.name)).toEqual(
      EXPORT_TABLES.conversations.map((column) => column.name),
    );
    const rows = await parquetReadObjects({ file: bytes, compressors });
    expect(rows).toHaveLength(count);
    expect(rows[count - 1]).toEqual({
      conversation_id: `c-${count - 1}`,
      agent_name: "agent",
      user_id: `u-${(count - 1) % 7}`,
      started_at: new Date(Date.UTC(2026, 10, 27, 0, 0, 0, count - 1)),
      last_run_at: new Date(Date.UTC(2026, 10, 27, 1)),
      run_count: BigInt(count - 1),
    });
    expect(rows[0]?.agent_name).toBe("__proto__");
  });

  it("keeps nulls of nullable columns and refuses a missing required value", async () => {
    const sink = bufferSink();
    const file = new ParquetTableFile("scores", sink);
    await file.add({
      score_id: "scr_1",
      session_id: null,
      event_id: null,
      conversation_id: "c-1",
      agent_name: "a",
      name: "resolved",
      value_kind: "boolean",
      numeric_value: null,
      boolean_value: false,
      categorical_value: null,
      comment: null,
      source: "api",
      author_kind: "apiKey",
      author_id: "key_1",
      created_at: new Date(0),
      updated_at: new Date(0),
    });
    await file.finish();
    const [row] = await parquetReadObjects({ file: sink.bytes(), compressors });
    expect(row).toMatchObject({ session_id: null, boolean_value: false, numeric_value: null });

    const broken = new ParquetTableFile("conversations", bufferSink());
    await broken.add({ ...conversation(1), conversation_id: null });
    await expect(broken.finish()).rejects.toThrow(/conversation_id needs a value/);
  });
});
