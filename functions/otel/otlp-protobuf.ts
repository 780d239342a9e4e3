/**
 * Decodes an OTLP protobuf message: the wire format read here (tags, varints, fixed-width numbers,
 * length-delimited fields), driven by a schema pre-compiled from the official protos (generated/). Written
 * here rather than imported: a general protobuf library costs a function kilobytes of features these
 * routes never use, and every function has a 300 KiB budget. The result has the field names of the OTLP
 * JSON mapping, so one reader serves both encodings (otlp-spans.ts, otlp-logs.ts): bytes as Uint8Array,
 * 64-bit integers as bigint, enums as numbers. Unknown fields (groups too) are skipped, as protobuf readers
 * do; a field of the wrong wire type, a varint over 10 bytes, a length past the end, or nesting deeper than
 * MAX_DEPTH throws a ProtobufDecodeError.
 */
import type { FieldSchema, MessageSchemas } from "./otlp-schema-types.js";

/**
 * Deepest message nesting read (AnyValue arrays and lists nest). Deep enough for every value the span
 * reader accepts (otlp-spans.ts ATTRIBUTE_DEPTH levels), so a too-deep attribute refuses its span alone,
 * as in the JSON encoding: an event attribute's AnyValue is 6 messages down, and each key-value list
 * level adds 3 (AnyValue → KeyValueList → KeyValue), so 6 + 3 × (16 + 1) = 57.
 */
export const MAX_DEPTH = 64;

export class ProtobufDecodeError extends Error {}

/** Wire types (the low 3 bits of a tag). */
const VARINT = 0;
const BIT64 = 1;
const LENGTH_DELIMITED = 2;
const START_GROUP = 3;
const END_GROUP = 4;
const BIT32 = 5;

/** The wire type of each scalar type the OTLP schemas use (a unit test holds them to the schemas); messages are length-delimited. */
export const WIRE_TYPE_OF: Readonly<Record<string, number>> = {
  string: LENGTH_DELIMITED,
  bytes: LENGTH_DELIMITED,
  bool: VARINT,
  int32: VARINT,
  uint32: VARINT,
  int64: VARINT,
  enum: VARINT,
  fixed64: BIT64,
  double: BIT64,
  fixed32: BIT32,
};

const utf8 = new TextDecoder();
const PAST_THE_END = "A length runs past the end of the body";
const TOO_DEEP = `Messages nest deeper than ${MAX_DEPTH} levels`;

/** The message `typeName` of `schemas` in `bytes`, with the OTLP JSON mapping's field names. */
export function decodeMessage(bytes: Uint8Array, schemas: MessageSchemas, typeName: string): Record<string, unknown> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.length;
  let pos = 0;
  const fail = (message: string): never => {
    throw new ProtobufDecodeError(message);
  };

  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= length) fail(PAST_THE_END);
      const byte = bytes[pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, result);
    }
    return fail("A varint is longer than 10 bytes");
  };
  const uint32 = () => Number(BigInt.asUintN(32, varint()));
  /**
   * A length prefix, read whole as the 64-bit varint it may be and checked against what is left of the body:
   * kept to its low 32 bits, a length of 2^62 would read as 0 and garbage would decode as an empty export.
   */
  const lengthPrefix = (): number => {
    const size = varint();
    if (size > BigInt(length - pos)) fail(PAST_THE_END);
    return Number(size);
  };
  /** Moves past `count` bytes; where they start. */
  const take = (count: number): number => {
    const start = pos;
    if (start + count > length) fail(PAST_THE_END);
    pos = start + count;
    return start;
  };
  const chunk = () => {
    const size = lengthPrefix();
    const start = take(size);
    return bytes.subarray(start, start + size);
  };
  const tag = (): [number, number] => {
    const value = uint32();
    if (value >>> 3 === 0) fail("A field number is 0");
    return [value >>> 3, value & 7];
  };
  const skip = (wireType: number, fieldNo: number, depth: number): void => {
    if (wireType === VARINT) varint();
    else if (wireType === BIT64) take(8);
    else if (wireType === LENGTH_DELIMITED) take(lengthPrefix());
    else if (wireType === BIT32) take(4);
    else if (wireType === START_GROUP) {
      if (depth > MAX_DEPTH) fail(TOO_DEEP);
      for (;;) {
        const [number, type] = tag();
        if (type === END_GROUP) {
          if (number !== fieldNo) fail("A group ends with another field");
          return;
        }
        skip(type, number, depth + 1);
      }
    } else fail(`Wire type ${wireType} where a field was expected`);
  };
  const scalar = (kind: string): unknown => {
    switch (kind) {
      case "string":
        return utf8.decode(chunk());
      case "bytes":
        return chunk();
      case "bool":
        return varint() !== 0n;
      case "uint32":
        return uint32();
      case "int64":
        return BigInt.asIntN(64, varint());
      case "fixed64":
        return view.getBigUint64(take(8), true);
      case "double":
        return view.getFloat64(take(8), true);
      case "fixed32":
        return view.getUint32(take(4), true);
      default:
        // int32 and enum
        return Number(BigInt.asIntN(32, varint()));
    }
  };
  const field = ([name, kind, repeated]: FieldSchema, wireType: number, depth: number): unknown[] => {
    const expected = WIRE_TYPE_OF[kind];
    if (expected === undefined) {
      if (wireType !== LENGTH_DELIMITED) fail(`${name}: wrong wire type`);
      const size = lengthPrefix();
      return [message(kind, pos + size, depth + 1)];
    }
    if (wireType === expected) return [scalar(kind)];
    // Packed repeated numbers: one length-delimited run of values.
    if (repeated !== true || wireType !== LENGTH_DELIMITED || expected === LENGTH_DELIMITED) {
      return fail(`${name}: wrong wire type`);
    }
    const end = pos + lengthPrefix();
    if (end > length) fail(PAST_THE_END);
    const values: unknown[] = [];
    while (pos < end) values.push(scalar(kind));
    return values;
  };
  const message = (name: string, end: number, depth: number): Record<string, unknown> => {
    if (depth > MAX_DEPTH) fail(TOO_DEEP);
    if (end > length) fail(PAST_THE_END);
    const schema = schemas[name] ?? {};
    const decoded: Record<string, unknown> = {};
    while (pos < end) {
      const [number, wireType] = tag();
      const fieldSchema = Object.hasOwn(schema, number) ? schema[number] : undefined;
      if (fieldSchema === undefined) {
        skip(wireType, number, depth);
        continue;
      }
      const values = field(fieldSchema, wireType, depth);
      const [fieldName, , repeated] = fieldSchema;
      if (repeated === true) {
        const list = (decoded[fieldName] as unknown[] | undefined) ?? [];
        list.push(...values);
        decoded[fieldName] = list;
      } else decoded[fieldName] = values[values.length - 1];
    }
    if (pos !== end) fail("A field runs past the end of its message");
    return decoded;
  };
  return message(typeName, length, 0);
}

/**
 * An OTLP Export…ServiceResponse: `partial_success` (field 1) holding the count of refused items (field 1,
 * int64) and, when not empty, the error message (field 2, string). Empty when nothing was refused.
 */
export function encodePartialSuccess(partial: { rejected: number; errorMessage: string } | undefined): Uint8Array {
  if (partial === undefined) return new Uint8Array(0);
  const varint = (value: number): number[] => {
    const out: number[] = [];
    let rest = Math.max(0, Math.floor(value));
    for (; rest >= 0x80; rest = Math.floor(rest / 0x80)) out.push((rest % 0x80) | 0x80);
    out.push(rest);
    return out;
  };
  const message = new TextEncoder().encode(partial.errorMessage);
  const inner = [
    0x08,
    ...varint(partial.rejected),
    ...(message.length > 0 ? [0x12, ...varint(message.length), ...message] : []),
  ];
  return Uint8Array.from([0x0a, ...varint(inner.length), ...inner]);
}
