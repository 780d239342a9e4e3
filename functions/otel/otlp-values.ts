/**
 * Readers of the values every OTLP export request holds, whatever its signal (traces: otlp-spans.ts; logs:
 * otlp-logs.ts) and its encoding — the protobuf decoder and the OTLP JSON mapping give the same field names:
 * - ids: bytes (protobuf), or hex text as the JSON mapping says; base64 text is tolerated;
 * - 64-bit integers: bigint (protobuf), decimal text or numbers (JSON); {low, high} pairs are tolerated;
 * - AnyValues of every kind, nested at most ATTRIBUTE_DEPTH levels; a key such as `__proto__` is only a key.
 * A value that cannot be read throws a RecordProblem: the span or log record holding it is refused alone.
 */
import { ValidationError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type { AttributeList, AttributeValue } from "../domain/otel-span.js";
import type { CountedLimit, DecodeLimits } from "./decode-limits.js";

/** Deepest nesting of array / key-value attribute values read. */
export const ATTRIBUTE_DEPTH = 16;

/** Why one span or log record cannot be read: it is refused alone (the request is not). */
export class RecordProblem extends Error {}

export type Fields = Readonly<Record<string, unknown>>;

export function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

export function listOf(value: unknown, what: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RecordProblem(`${what} must be an array`);
  return value;
}

const HEX = /^[0-9a-f]*$/i;

/** An id as lower-case hex: bytes, hex text, or base64 text of `bytes` bytes; empty ids are undefined. */
export function readId(value: unknown, bytes: number, what: string): string | undefined {
  let hex: string | undefined;
  if (value === undefined || value === null) return undefined;
  if (value instanceof Uint8Array) {
    if (value.length === 0) return undefined;
    hex = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
  } else if (typeof value === "string") {
    if (value.length === 0) return undefined;
    if (value.length === bytes * 2 && HEX.test(value)) hex = value.toLowerCase();
    else {
      const decoded = Buffer.from(value, "base64");
      if (decoded.length === bytes && decoded.toString("base64").replace(/=+$/, "") === value.replace(/=+$/, "")) {
        hex = decoded.toString("hex");
      }
    }
  }
  if (hex === undefined || hex.length !== bytes * 2) {
    throw new RecordProblem(`${what} must be ${bytes} bytes (${bytes * 2} hex digits)`);
  }
  if (/^0+$/.test(hex)) throw new RecordProblem(`${what} must not be all zeros`);
  return hex;
}

interface LongLike {
  readonly low: number;
  readonly high: number;
}

function isLongLike(value: unknown): value is LongLike {
  return isFields(value) && typeof value.low === "number" && typeof value.high === "number";
}

/** A fixed64 holds at most 2^64 - 1 ns (the year 2554). */
const MAX_UNIX_NANOS = 2n ** 64n - 1n;

/** A 64-bit unsigned nanosecond time as milliseconds (whole-millisecond precision is all the service keeps). */
export function readNanosAsMs(value: unknown, what: string): number {
  let nanos: bigint | undefined;
  if (typeof value === "bigint" && value >= 0n) nanos = value;
  else if (typeof value === "number" && Number.isFinite(value) && value >= 0) nanos = BigInt(Math.floor(value));
  else if (typeof value === "string" && /^\d{1,20}$/.test(value)) nanos = BigInt(value);
  else if (isLongLike(value)) nanos = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  // A JSON number such as 1e300 is no time at all.
  if (nanos === undefined || nanos === 0n || nanos > MAX_UNIX_NANOS)
    throw new RecordProblem(`${what} must be a time in Unix nanoseconds`);
  return Number(nanos / 1_000_000n);
}

function readInt(value: unknown): number | string {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  if (typeof value === "string" && /^-?\d+$/.test(value)) {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : value;
  }
  if (isLongLike(value)) {
    const number = value.high * 2 ** 32 + (value.low >>> 0);
    return Number.isSafeInteger(number) ? number : String(number);
  }
  throw new RecordProblem("intValue must be an integer");
}

function readDouble(value: unknown): number | string {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string" && ["NaN", "Infinity", "-Infinity"].includes(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  throw new RecordProblem("doubleValue must be a number");
}

function has(fields: Fields, key: string): boolean {
  return Object.hasOwn(fields, key) && fields[key] !== null && fields[key] !== undefined;
}

/** An OTLP AnyValue. */
export function readAnyValue(value: unknown, depth = 0): AttributeValue {
  if (!isFields(value)) return null;
  if (depth > ATTRIBUTE_DEPTH) throw new RecordProblem(`Attribute values must nest at most ${ATTRIBUTE_DEPTH} levels`);
  if (has(value, "stringValue")) {
    if (typeof value.stringValue !== "string") throw new RecordProblem("stringValue must be a string");
    return value.stringValue;
  }
  if (has(value, "boolValue")) {
    if (typeof value.boolValue !== "boolean") throw new RecordProblem("boolValue must be a boolean");
    return value.boolValue;
  }
  if (has(value, "intValue")) return readInt(value.intValue);
  if (has(value, "doubleValue")) return readDouble(value.doubleValue);
  if (has(value, "bytesValue")) {
    const bytes = value.bytesValue;
    if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString("base64");
    if (typeof bytes === "string") return bytes;
    throw new RecordProblem("bytesValue must be base64 text");
  }
  if (has(value, "arrayValue")) {
    const array = value.arrayValue;
    const values = isFields(array) ? listOf(array.values, "arrayValue.values") : [];
    return values.map((item) => readAnyValue(item, depth + 1));
  }
  if (has(value, "kvlistValue")) {
    const list = value.kvlistValue;
    const entries = isFields(list) ? readKeyValues(list.values, depth + 1) : new Map();
    const object: Record<string, AttributeValue> = {};
    // Keys such as `__proto__` become own properties (defineProperty), never a prototype.
    for (const [key, item] of entries)
      Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
    return object as AttributeList;
  }
  return null;
}

export function readKeyValues(value: unknown, depth = 0): Map<string, AttributeValue> {
  const attributes = new Map<string, AttributeValue>();
  for (const entry of listOf(value, "attributes")) {
    // An empty key is absent in protobuf (proto3 leaves default values off the wire): read it as "".
    const key = isFields(entry) ? (entry.key ?? "") : undefined;
    if (typeof key !== "string") throw new RecordProblem("Each attribute must have a string key");
    attributes.set(key, readAnyValue((entry as Fields).value, depth));
  }
  return attributes;
}

/** A list of the request's envelope (`resourceSpans`, `scopeLogs`…): not a list is a 400 for the request. */
export function envelopeList(value: unknown, what: string, requestName: string): readonly unknown[] {
  try {
    return listOf(value, what);
  } catch (error) {
    throw new ValidationError(`Not an OTLP ${requestName}: ${(error as Error).message}`);
  }
}

/**
 * The limits an export request is decoded within (decode-limits.ts): its signal's own (`Span`, `LogRecord`),
 * the attributes (`KeyValue` messages, at any level) and the values of any kind.
 */
export function exportLimits(own: Readonly<Record<string, CountedLimit>>): DecodeLimits {
  return {
    messages: {
      ...own,
      KeyValue: {
        most: LIMITS.otlpAttributes,
        refusal: `A request may hold at most ${LIMITS.otlpAttributes} attributes; lower the exporter's batch size or its attribute count limit (OTEL_ATTRIBUTE_COUNT_LIMIT)`,
      },
    },
    values: {
      most: LIMITS.otlpValues,
      refusal: `A request may hold at most ${LIMITS.otlpValues} values (spans, log records, events, attributes, array items and their fields); lower the exporter's batch size`,
    },
  };
}
