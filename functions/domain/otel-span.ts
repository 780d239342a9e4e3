/**
 * A span as the service reads it from an OTLP export request, whatever its encoding (protobuf or the OTLP
 * JSON mapping): ids as lower-case hex, times in milliseconds, attributes in a Map (a key such as
 * `__proto__` is only a key). Pure types and readers: no I/O, no HTTP.
 */

/** An OTLP AnyValue: string, number, boolean, bytes (base64 text), array, key-value list, or empty. */
export type AttributeValue = string | number | boolean | null | readonly AttributeValue[] | AttributeList;
export interface AttributeList {
  readonly [key: string]: AttributeValue;
}

export type Attributes = ReadonlyMap<string, AttributeValue>;

/** OTLP Status.code: 0 unset, 1 ok, 2 error. */
export type SpanStatusCode = 0 | 1 | 2;
export const STATUS_ERROR: SpanStatusCode = 2;

export interface SpanEvent {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: Attributes;
}

export interface OtelSpan {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  /** Unset for a root span. */
  readonly parentSpanId?: string | undefined;
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attributes;
  readonly events: readonly SpanEvent[];
  readonly status: { readonly code: SpanStatusCode; readonly message?: string | undefined };
  /** The attributes of the resource that emitted the span (`service.name`, …). */
  readonly resource: Attributes;
  /** The name of the instrumentation scope that emitted it (OTLP `scope.name`), if any. */
  readonly scope?: string | undefined;
}

/** A string attribute, or undefined (other types are not names). */
export function stringAttribute(attributes: Attributes, key: string): string | undefined {
  const value = attributes.get(key);
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** A numeric attribute (an int64 sent as a decimal string counts), or undefined. */
export function numberAttribute(attributes: Attributes, key: string): number | undefined {
  const value = attributes.get(key);
  const number = typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}

/** The first of `keys` with a string value. */
export function firstString(attributes: Attributes, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = stringAttribute(attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}
