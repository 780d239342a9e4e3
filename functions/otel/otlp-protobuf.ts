/**
 * Decodes an OTLP protobuf message: the wire format read here (tags, varints, fixed-width numbers,
 * length-delimited fields), driven by a schema pre-compiled from the official protos (generated/). Written
 * here rather than imported: a general protobuf library costs a function kilobytes of features these
 * routes never use, and every function has a 300 KiB budget. The result has the field names of the OTLP
 * JSON mapping, so one reader serves both encodings (otlp-spans.ts, otlp-logs.ts): bytes as Uint8Array,
 * fixed64 as bigint, int64 as a number when it is a safe integer (a bigint otherwise), enums as numbers.
 * Varints are read in plain numbers (exact to 2^53, which every length, tag and 32-bit field fits in); only
 * an int64 past 2^53 is read again as a bigint. Unknown fields (groups too) are skipped, as protobuf readers
 * do; a field of the wrong wire type, a varint over 10 bytes, a length past the end, or nesting deeper than
 * MAX_DEPTH throws a ProtobufDecodeError.
 *
 * The request's limits (decode-limits.ts) are counted as it decodes: the message that passes one throws a
 * DecodeLimitError before it is read, so a body that inflates to millions of tiny fields costs what its
 * limits allow, not what it holds.
 */
import { type DecodeLimits, decodeCounter } from "./decode-limits.js";
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
const TOO_LONG = "A varint is longer than 10 bytes";
const NO_LIMITS: DecodeLimits = { messages: {}, values: { most: Number.POSITIVE_INFINITY, refusal: "" } };

/**
 * The message `typeName` of `schemas` in `bytes`, with the OTLP JSON mapping's field names; `limits` are
 * counted as it goes (a DecodeLimitError once one is passed).
 */
export function decodeMessage(
  bytes: Uint8Array,
  schemas: MessageSchemas,
  typeName: string,
  limits: DecodeLimits = NO_LIMITS,
): Record<string, unknown> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.length;
  const counter = decodeCounter(limits);
  let pos = 0;
  const fail = (message: string): never => {
    throw new ProtobufDecodeError(message);
  };
  const next = (): number => {
    if (pos >= length) fail(PAST_THE_END);
    return bytes[pos++] as number;
  };

  /** A varint's value in a plain number: exact below 2^53, at least 2^53 above (enough to compare a length). */
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let read = 0; read < 10; read++) {
      const byte = next();
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
    return fail(TOO_LONG);
  };
  /** A varint's low 32 bits, as a signed 32-bit integer (int32, enum; `>>> 0` for uint32 and tags). */
  const varint32 = (): number => {
    let result = 0;
    for (let read = 0; read < 10; read++) {
      const byte = next();
      // Bits past the 32nd fall off the shift; the bytes after the fifth only end the varint.
      if (read < 5) result |= (byte & 0x7f) << (7 * read);
      if (byte < 0x80) return result;
    }
    return fail(TOO_LONG);
  };
  /** The 64-bit two's complement a varint holds, for an int64 past 2^53 (or negative). */
  const varintBigint = (start: number): bigint => {
    let result = 0n;
    for (let at = start, shift = 0n; at < pos; at++, shift += 7n)
      result |= BigInt((bytes[at] as number) & 0x7f) << shift;
    return BigInt.asIntN(64, result);
  };
  const int64 = (): number | bigint => {
    const start = pos;
    const value = varint();
    if (value <= Number.MAX_SAFE_INTEGER) return value;
    const big = varintBigint(start);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  };
  /**
   * A length prefix, read whole as the 64-bit varint it may be and checked against what is left of the body:
   * kept to its low 32 bits, a length of 2^62 would read as 0 and garbage would decode as an empty export.
   */
  const lengthPrefix = (): number => {
    const size = varint();
    if (size > length - pos) fail(PAST_THE_END);
    return size;
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
  /** A tag: its field number times 8 plus its wire type. */
  const tag = (): number => {
    const value = varint32() >>> 0;
    if (value >>> 3 === 0) fail("A field number is 0");
    return value;
  };
  const skip = (wireType: number, fieldNo: number, depth: number): void => {
    if (wireType === VARINT) varint();
    else if (wireType === BIT64) take(8);
    else if (wireType === LENGTH_DELIMITED) take(lengthPrefix());
    else if (wireType === BIT32) take(4);
    else if (wireType === START_GROUP) {
      if (depth > MAX_DEPTH) fail(TOO_DEEP);
      for (;;) {
        const inner = tag();
        if ((inner & 7) === END_GROUP) {
          if (inner >>> 3 !== fieldNo) fail("A group ends with another field");
          return;
        }
        skip(inner & 7, inner >>> 3, depth + 1);
      }
    } else fail(`Wire type ${wireType} where a field was expected`);
  };
  const scalar = (kind: string): unknown => {
    counter.value(pos);
    switch (kind) {
      case "string":
        return utf8.decode(chunk());
      case "bytes":
        return chunk();
      case "bool":
        return varint() !== 0;
      case "uint32":
        return varint32() >>> 0;
      case "int64":
        return int64();
      case "fixed64":
        return view.getBigUint64(take(8), true);
      case "double":
        return view.getFloat64(take(8), true);
      case "fixed32":
        return view.getUint32(take(4), true);
      default:
        // int32 and enum
        return varint32();
    }
  };
  /** A field's value, appended to `list` when the field is repeated (packed numbers: every value of the run). */
  const field = ([name, kind]: FieldSchema, wireType: number, depth: number, list: unknown[] | undefined): unknown => {
    const expected = WIRE_TYPE_OF[kind];
    let value: unknown;
    if (expected === undefined) {
      if (wireType !== LENGTH_DELIMITED) fail(`${name}: wrong wire type`);
      const size = lengthPrefix();
      counter.message(kind, pos);
      value = message(kind, pos + size, depth + 1);
    } else if (wireType === expected) value = scalar(kind);
    else {
      // Packed repeated numbers: one length-delimited run of values.
      if (list === undefined || wireType !== LENGTH_DELIMITED || expected === LENGTH_DELIMITED) {
        return fail(`${name}: wrong wire type`);
      }
      const end = pos + lengthPrefix();
      while (pos < end) list.push(scalar(kind));
      if (pos !== end) fail("A field runs past the end of its message");
      return list;
    }
    if (list === undefined) return value;
    list.push(value);
    return list;
  };
  const message = (name: string, end: number, depth: number): Record<string, unknown> => {
    if (depth > MAX_DEPTH) fail(TOO_DEEP);
    if (end > length) fail(PAST_THE_END);
    const schema = schemas[name] ?? {};
    const decoded: Record<string, unknown> = {};
    while (pos < end) {
      const key = tag();
      const number = key >>> 3;
      const wireType = key & 7;
      const fieldSchema = Object.hasOwn(schema, number) ? schema[number] : undefined;
      if (fieldSchema === undefined) {
        skip(wireType, number, depth);
        continue;
      }
      const fieldName = fieldSchema[0];
      const list = fieldSchema[2] === true ? ((decoded[fieldName] as unknown[] | undefined) ?? []) : undefined;
      decoded[fieldName] = field(fieldSchema, wireType, depth, list);
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
