/**
 * Decodes an OTLP protobuf message with @bufbuild/protobuf's wire reader, driven by the schema
 * pre-compiled from the official protos (generated/otlp-trace-schema.ts). The result has the field
 * names of the OTLP JSON mapping, so one reader (otlp-spans.ts) serves both encodings: bytes as
 * Uint8Array, 64-bit integers as bigint, enums as numbers. Unknown fields are skipped, as protobuf
 * readers do; a field of the wrong wire type, a length past the end, or nesting deeper than
 * MAX_DEPTH throws.
 */
import { BinaryReader, type BinaryReader as Reader, WireType } from "@bufbuild/protobuf/wire";
import { EXPORT_TRACE_REQUEST, OTLP_TRACE_SCHEMA } from "./generated/otlp-trace-schema.js";
import type { FieldSchema } from "./otlp-schema-types.js";

/**
 * Deepest message nesting read (AnyValue arrays and lists nest). Deep enough for every value the span
 * reader accepts (otlp-spans.ts ATTRIBUTE_DEPTH levels), so a too-deep attribute refuses its span alone,
 * as in the JSON encoding: an event attribute's AnyValue is 6 messages down, and each key-value list
 * level adds 3 (AnyValue → KeyValueList → KeyValue), so 6 + 3 × (16 + 1) = 57.
 */
export const MAX_DEPTH = 64;

export class ProtobufDecodeError extends Error {}

const WIRE_TYPE_OF: Readonly<Record<string, WireType>> = {
  string: WireType.LengthDelimited,
  bytes: WireType.LengthDelimited,
  bool: WireType.Varint,
  int32: WireType.Varint,
  uint32: WireType.Varint,
  sint32: WireType.Varint,
  int64: WireType.Varint,
  uint64: WireType.Varint,
  sint64: WireType.Varint,
  enum: WireType.Varint,
  fixed64: WireType.Bit64,
  sfixed64: WireType.Bit64,
  double: WireType.Bit64,
  fixed32: WireType.Bit32,
  sfixed32: WireType.Bit32,
  float: WireType.Bit32,
};

/**
 * Reads a length prefix whole, as the 64-bit varint it may be, and checks it against what is left of the
 * body. The wire reader's own `uint32()` keeps only the low 32 bits, so a length of 2^62 would read as 0:
 * an export that is garbage would decode as an empty one (issue 21).
 */
function readLength(reader: Reader): number {
  const length = BigInt(reader.uint64());
  if (length > BigInt(reader.len - reader.pos)) throw new ProtobufDecodeError("A length runs past the end of the body");
  return Number(length);
}

/** A length-delimited scalar (string, bytes) once its length is known to fit: the wire reader reads it again. */
function checkedLengthDelimited<T>(reader: Reader, read: () => T): T {
  const start = reader.pos;
  readLength(reader);
  reader.pos = start;
  return read();
}

function readScalar(reader: Reader, kind: string): unknown {
  switch (kind) {
    case "string":
      return checkedLengthDelimited(reader, () => reader.string());
    case "bytes":
      return checkedLengthDelimited(reader, () => reader.bytes());
    case "bool":
      return reader.bool();
    case "int32":
    case "enum":
      return reader.int32();
    case "uint32":
      return reader.uint32();
    case "sint32":
      return reader.sint32();
    case "int64":
      return reader.int64();
    case "uint64":
      return reader.uint64();
    case "sint64":
      return reader.sint64();
    case "fixed64":
      return reader.fixed64();
    case "sfixed64":
      return reader.sfixed64();
    case "double":
      return reader.double();
    case "fixed32":
      return reader.fixed32();
    case "sfixed32":
      return reader.sfixed32();
    case "float":
      return reader.float();
    default:
      throw new ProtobufDecodeError(`Unsupported field type ${kind}`);
  }
}

function readField(reader: Reader, field: FieldSchema, wireType: WireType, depth: number): unknown[] {
  if (field.kind.startsWith("message:")) {
    if (wireType !== WireType.LengthDelimited) throw new ProtobufDecodeError(`${field.name}: wrong wire type`);
    const length = readLength(reader);
    return [readMessage(reader, field.kind.slice("message:".length), reader.pos + length, depth + 1)];
  }
  const expected = WIRE_TYPE_OF[field.kind];
  if (wireType === expected) return [readScalar(reader, field.kind)];
  // Packed repeated numbers: one length-delimited run of values.
  if (field.repeated === true && wireType === WireType.LengthDelimited && expected !== WireType.LengthDelimited) {
    const length = readLength(reader);
    const end = reader.pos + length;
    const values: unknown[] = [];
    while (reader.pos < end) values.push(readScalar(reader, field.kind));
    return values;
  }
  throw new ProtobufDecodeError(`${field.name}: wrong wire type`);
}

function readMessage(reader: Reader, typeName: string, end: number, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError(`Messages nest deeper than ${MAX_DEPTH} levels`);
  if (end > reader.len) throw new ProtobufDecodeError("A length runs past the end of the body");
  const schema = OTLP_TRACE_SCHEMA[typeName] ?? {};
  const message: Record<string, unknown> = {};
  while (reader.pos < end) {
    const [number, wireType] = reader.tag();
    const field = Object.hasOwn(schema, number) ? schema[number] : undefined;
    if (field === undefined) {
      reader.skip(wireType);
      continue;
    }
    const values = readField(reader, field, wireType, depth);
    if (field.repeated === true) {
      const list = (message[field.name] as unknown[] | undefined) ?? [];
      list.push(...values);
      message[field.name] = list;
    } else message[field.name] = values[values.length - 1];
  }
  if (reader.pos !== end) throw new ProtobufDecodeError("A field runs past the end of its message");
  return message;
}

/** The ExportTraceServiceRequest in `bytes`, with the OTLP JSON mapping's field names. */
export function decodeExportTraceRequest(bytes: Uint8Array): Record<string, unknown> {
  const reader = new BinaryReader(bytes);
  return readMessage(reader, EXPORT_TRACE_REQUEST, bytes.length, 0);
}
