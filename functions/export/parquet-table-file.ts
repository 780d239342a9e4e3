/**
 * One table's Parquet file of one export unit, written as rows arrive (issue 35): rows are buffered into row
 * groups of ROW_GROUP_ROWS, each encoded by hyparquet-writer (ZSTD through node:zlib where the runtime has it,
 * else SNAPPY) and handed to the sink as soon as it is encoded, so memory holds one row group and the sink's
 * part, never the file (docs/research/parquet-writers.md: 25,000-row groups wrote 1M events in a 128 MB heap).
 */
import { zstdCompressSync } from "node:zlib";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { EXPORT_SCHEMA_VERSION, EXPORT_TABLES, type ExportColumn, type ExportTableName } from "./export-tables.js";

/** Rows per row group: small enough for a 128 MB heap, large enough for good compression and statistics. */
export const ROW_GROUP_ROWS = 25_000;

export type ExportValue = string | number | boolean | Date | null;
export type ExportRow = Readonly<Record<string, ExportValue>>;

/** Where a file's bytes go, in order (an S3 upload, a buffer in tests). */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<void>;
}

/** hyparquet-writer's own types (it pins its own hyparquet). */
type WriterOptions = ConstructorParameters<typeof ParquetWriter>[0];
type SchemaElement = WriterOptions["schema"][number];
type CompressionCodec = NonNullable<WriterOptions["codec"]>;

/** ZSTD needs node:zlib's zstd (Node ≥ 22.15: Lambda's nodejs22.x and 24.x, `npm start`'s Node 24). */
const codec: CompressionCodec = typeof zstdCompressSync === "function" ? "ZSTD" : "SNAPPY";
const compressors = codec === "ZSTD" ? { ZSTD: (input: Uint8Array) => new Uint8Array(zstdCompressSync(input)) } : {};

function schemaElement(column: ExportColumn): SchemaElement {
  const repetition_type = column.nullable ? "OPTIONAL" : "REQUIRED";
  switch (column.type) {
    case "string":
      return {
        name: column.name,
        type: "BYTE_ARRAY",
        converted_type: "UTF8",
        logical_type: { type: "STRING" },
        repetition_type,
      };
    case "bigint":
      return { name: column.name, type: "INT64", repetition_type };
    case "double":
      return { name: column.name, type: "DOUBLE", repetition_type };
    case "boolean":
      return { name: column.name, type: "BOOLEAN", repetition_type };
    case "timestamp":
      return {
        name: column.name,
        type: "INT64",
        converted_type: "TIMESTAMP_MILLIS",
        logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" },
        repetition_type,
      };
  }
}

/** The Parquet schema of an exported table (the root, then one leaf per column). */
export function parquetSchema(table: ExportTableName): SchemaElement[] {
  const columns = EXPORT_TABLES[table];
  return [{ name: "root", num_children: columns.length }, ...columns.map(schemaElement)];
}

/** A value as the column's Parquet type wants it (INT64 as BigInt); a missing value of a required column throws. */
function columnValue(column: ExportColumn, value: ExportValue | undefined): unknown {
  if (value === null || value === undefined) {
    if (!column.nullable) throw new Error(`Export column ${column.name} needs a value`);
    return null;
  }
  if (column.type === "bigint") return BigInt(Math.trunc(Number(value)));
  return value;
}

/** A ByteWriter whose bytes are taken out after each row group (hyparquet-writer calls `flush`). */
class DrainingWriter extends ByteWriter {
  readonly pending: Uint8Array[] = [];

  flush(): void {
    if (this.index === 0) return;
    this.pending.push(new Uint8Array(this.buffer.slice(0, this.index)));
    this.index = 0;
  }

  override finish(): void {
    this.flush();
  }
}

export class ParquetTableFile {
  private readonly columns: readonly ExportColumn[];
  private readonly writer = new DrainingWriter();
  private readonly parquet: ParquetWriter;
  private buffered: ExportRow[] = [];
  private rowCount = 0;

  constructor(
    readonly table: ExportTableName,
    private readonly sink: ByteSink,
  ) {
    this.columns = EXPORT_TABLES[table];
    this.parquet = new ParquetWriter({
      writer: this.writer,
      schema: parquetSchema(table),
      codec,
      compressors,
      kvMetadata: [
        { key: "ats.table", value: table },
        { key: "ats.schemaVersion", value: String(EXPORT_SCHEMA_VERSION) },
      ],
      createdBy: "ats export (hyparquet-writer)",
    });
  }

  get rows(): number {
    return this.rowCount + this.buffered.length;
  }

  async add(row: ExportRow): Promise<void> {
    this.buffered.push(row);
    if (this.buffered.length >= ROW_GROUP_ROWS) await this.writeRowGroup();
  }

  private async writeRowGroup(): Promise<void> {
    if (this.buffered.length === 0) return;
    const rows = this.buffered;
    this.buffered = [];
    const columnData = this.columns.map((column) => ({
      name: column.name,
      data: rows.map((row) => columnValue(column, row[column.name])),
    }));
    this.parquet.write({ columnData, rowGroupSize: rows.length });
    this.rowCount += rows.length;
    await this.drain();
  }

  private async drain(): Promise<void> {
    while (this.writer.pending.length > 0) {
      const bytes = this.writer.pending.shift() as Uint8Array;
      await this.sink.write(bytes);
    }
  }

  /** Writes what is buffered and the footer; resolves with the rows written. */
  async finish(): Promise<number> {
    await this.writeRowGroup();
    this.parquet.finish();
    this.writer.flush();
    await this.drain();
    return this.rowCount;
  }
}
