/**
 * Reads the spans of a decoded OTLP ExportTraceServiceRequest into {@link OtelSpan}s. The same reader serves
 * both encodings, since the protobuf decoder and the OTLP JSON mapping give the same field names:
 * - ids: bytes (protobuf), or hex text as the JSON mapping says; base64 text is tolerated;
 * - 64-bit integers: bigint (protobuf), decimal text or numbers (JSON); {low, high} pairs are tolerated;
 * - enums: integers, or their names;
 * - unknown fields are ignored (as the OTLP spec asks of receivers).
 * A request whose envelope is not an ExportTraceServiceRequest is a 400; a span that cannot be read is
 * refused on its own and counted in `partialSuccess`.
 */
import { ValidationError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type {
  AttributeList,
  Attributes,
  AttributeValue,
  OtelSpan,
  SpanEvent,
  SpanStatusCode,
} from "../domain/otel-span.js";

/** Deepest nesting of array / key-value attribute values read. */
export const ATTRIBUTE_DEPTH = 16;

export interface SpanRefusal {
  readonly traceId?: string | undefined;
  readonly spanId?: string | undefined;
  readonly message: string;
}

export interface SpansRead {
  readonly spans: readonly OtelSpan[];
  readonly refused: readonly SpanRefusal[];
}

class SpanProblem extends Error {}

type Fields = Readonly<Record<string, unknown>>;

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function listOf(value: unknown, what: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new SpanProblem(`${what} must be an array`);
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
    throw new SpanProblem(`${what} must be ${bytes} bytes (${bytes * 2} hex digits)`);
  }
  if (/^0+$/.test(hex)) throw new SpanProblem(`${what} must not be all zeros`);
  return hex;
}

interface LongLike {
  readonly low: number;
  readonly high: number;
}

function isLongLike(value: unknown): value is LongLike {
  return isFields(value) && typeof value.low === "number" && typeof value.high === "number";
}

/** A 64-bit unsigned nanosecond time as milliseconds (whole-millisecond precision is all the service keeps). */
const MAX_UNIX_NANOS = 2n ** 64n - 1n;

export function readNanosAsMs(value: unknown, what: string): number {
  let nanos: bigint | undefined;
  if (typeof value === "bigint" && value >= 0n) nanos = value;
  else if (typeof value === "number" && Number.isFinite(value) && value >= 0) nanos = BigInt(Math.floor(value));
  else if (typeof value === "string" && /^\d{1,20}$/.test(value)) nanos = BigInt(value);
  else if (isLongLike(value)) nanos = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  // A fixed64 holds at most 2^64 - 1 ns (year 2554); a JSON number such as 1e300 is no time at all.
  if (nanos === undefined || nanos === 0n || nanos > MAX_UNIX_NANOS) {
    throw new SpanProblem(`${what} must be a time in Unix nanoseconds`);
  }
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
  throw new SpanProblem("intValue must be an integer");
}

function readDouble(value: unknown): number | string {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string" && ["NaN", "Infinity", "-Infinity"].includes(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  throw new SpanProblem("doubleValue must be a number");
}

function has(fields: Fields, key: string): boolean {
  return Object.hasOwn(fields, key) && fields[key] !== null && fields[key] !== undefined;
}

/** An OTLP AnyValue. */
export function readAnyValue(value: unknown, depth = 0): AttributeValue {
  if (!isFields(value)) return null;
  if (depth > ATTRIBUTE_DEPTH) throw new SpanProblem(`Attribute values must nest at most ${ATTRIBUTE_DEPTH} levels`);
  if (has(value, "stringValue")) {
    if (typeof value.stringValue !== "string") throw new SpanProblem("stringValue must be a string");
    return value.stringValue;
  }
  if (has(value, "boolValue")) {
    if (typeof value.boolValue !== "boolean") throw new SpanProblem("boolValue must be a boolean");
    return value.boolValue;
  }
  if (has(value, "intValue")) return readInt(value.intValue);
  if (has(value, "doubleValue")) return readDouble(value.doubleValue);
  if (has(value, "bytesValue")) {
    const bytes = value.bytesValue;
    if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString("base64");
    if (typeof bytes === "string") return bytes;
    throw new SpanProblem("bytesValue must be base64 text");
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

function readKeyValues(value: unknown, depth = 0): Map<string, AttributeValue> {
  const attributes = new Map<string, AttributeValue>();
  for (const entry of listOf(value, "attributes")) {
    // An empty key is absent in protobuf (proto3 leaves default values off the wire): read it as "".
    const key = isFields(entry) ? (entry.key ?? "") : undefined;
    if (typeof key !== "string") throw new SpanProblem("Each attribute must have a string key");
    attributes.set(key, readAnyValue((entry as Fields).value, depth));
  }
  return attributes;
}

const STATUS_NAMES: Readonly<Record<string, SpanStatusCode>> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

function readStatus(value: unknown): OtelSpan["status"] {
  if (!isFields(value)) return { code: 0 };
  const raw = value.code;
  const code =
    raw === undefined || raw === null
      ? 0
      : typeof raw === "string" && Object.hasOwn(STATUS_NAMES, raw)
        ? STATUS_NAMES[raw]
        : raw;
  if (code !== 0 && code !== 1 && code !== 2) throw new SpanProblem("status.code must be 0, 1 or 2");
  const message = typeof value.message === "string" && value.message.length > 0 ? value.message : undefined;
  return { code, message };
}

function readEvent(value: unknown): SpanEvent {
  if (!isFields(value)) throw new SpanProblem("Each span event must be an object");
  return {
    name: typeof value.name === "string" ? value.name : "",
    timeMs: readNanosAsMs(value.timeUnixNano, "events.timeUnixNano"),
    attributes: readKeyValues(value.attributes),
  };
}

function readSpan(value: unknown, resource: Attributes): OtelSpan {
  if (!isFields(value)) throw new SpanProblem("Each span must be an object");
  const traceId = readId(value.traceId, 16, "traceId");
  const spanId = readId(value.spanId, 8, "spanId");
  if (traceId === undefined || spanId === undefined) throw new SpanProblem("A span needs a traceId and a spanId");
  const startMs = readNanosAsMs(value.startTimeUnixNano, "startTimeUnixNano");
  const endMs = readNanosAsMs(value.endTimeUnixNano, "endTimeUnixNano");
  if (endMs < startMs) throw new SpanProblem("endTimeUnixNano must not be before startTimeUnixNano");
  return {
    traceId,
    spanId,
    parentSpanId: readId(value.parentSpanId, 8, "parentSpanId"),
    name: typeof value.name === "string" ? value.name : "",
    startMs,
    endMs,
    attributes: readKeyValues(value.attributes),
    events: listOf(value.events, "events").map(readEvent),
    status: readStatus(value.status),
    resource,
  };
}

function identify(value: unknown): Pick<SpanRefusal, "traceId" | "spanId"> {
  if (!isFields(value)) return {};
  const quietly = (read: () => string | undefined) => {
    try {
      return read();
    } catch {
      return undefined;
    }
  };
  return {
    traceId: quietly(() => readId(value.traceId, 16, "traceId")),
    spanId: quietly(() => readId(value.spanId, 8, "spanId")),
  };
}

function envelopeList(value: unknown, what: string): readonly unknown[] {
  try {
    return listOf(value, what);
  } catch (error) {
    throw new ValidationError(`Not an OTLP ExportTraceServiceRequest: ${(error as Error).message}`);
  }
}

/** The spans of a decoded request; a span that cannot be read is refused with the reason. */
export function readExportRequest(request: unknown): SpansRead {
  if (!isFields(request)) throw new ValidationError("Not an OTLP ExportTraceServiceRequest: send an object");
  const spans: OtelSpan[] = [];
  const refused: SpanRefusal[] = [];
  let count = 0;
  for (const resourceSpans of envelopeList(request.resourceSpans, "resourceSpans")) {
    if (!isFields(resourceSpans)) throw new ValidationError("Each resourceSpans entry must be an object");
    let resource: Attributes = new Map();
    let resourceProblem: string | undefined;
    try {
      resource = readKeyValues(isFields(resourceSpans.resource) ? resourceSpans.resource.attributes : undefined);
    } catch (error) {
      resourceProblem = `resource: ${(error as Error).message}`;
    }
    for (const scopeSpans of envelopeList(resourceSpans.scopeSpans, "scopeSpans")) {
      if (!isFields(scopeSpans)) throw new ValidationError("Each scopeSpans entry must be an object");
      for (const span of envelopeList(scopeSpans.spans, "spans")) {
        count++;
        if (count > LIMITS.otlpSpans) {
          throw new ValidationError(
            `A request may hold at most ${LIMITS.otlpSpans} spans; lower the exporter's batch size (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`,
          );
        }
        try {
          if (resourceProblem !== undefined) throw new SpanProblem(resourceProblem);
          spans.push(readSpan(span, resource));
        } catch (error) {
          if (!(error instanceof SpanProblem)) throw error;
          refused.push({ ...identify(span), message: error.message });
        }
      }
    }
  }
  return { spans, refused };
}
