/**
 * What one OTLP export request may hold, counted while it is read, so that the work a request costs is
 * bounded by these limits rather than by its size once decompressed (5 MiB of two-byte fields would
 * otherwise be millions of objects): the protobuf reader (otlp-protobuf.ts) counts as it decodes, and the
 * same counts are taken of a JSON request (otlp-json-count.ts), so both encodings refuse the same excess
 * with the same message. A count passed is a DecodeLimitError, where it is passed.
 */

/** A count and the refusal when it is passed. */
export interface CountedLimit {
  readonly most: number;
  /** The error's message: what the client should change. */
  readonly refusal: string;
}

export interface DecodeLimits {
  /** Messages of a type (its name in the schema: `Span`, `LogRecord`, `KeyValue`), counted as each starts. */
  readonly messages: Readonly<Record<string, CountedLimit>>;
  /** Every value read, whatever it is: each message and each field's value (a string, a number, bytes…). */
  readonly values: CountedLimit;
}

/** A request over one of its DecodeLimits: refused whole (a 400), as soon as the count passes. */
export class DecodeLimitError extends Error {
  override readonly name = "DecodeLimitError";
  constructor(
    message: string,
    /** Values read when the count passed (at most `values.most` + 1). */
    readonly valuesRead: number,
    /** Protobuf: bytes of the body read when the count passed. */
    readonly bytesRead?: number,
  ) {
    super(message);
  }
}

/** Counts of a request being read; `count…` throws once a limit is passed. */
export interface DecodeCounter {
  /** One more value of any kind. */
  value(bytesRead?: number): void;
  /** One more message of type `type` (counts as a value too). */
  message(type: string, bytesRead?: number): void;
  /** Values read so far. */
  readonly valuesRead: () => number;
}

/** A counter for one request. */
export function decodeCounter(limits: DecodeLimits): DecodeCounter {
  let values = 0;
  const counts = new Map<string, number>();
  const mostValues = limits.values.most;
  function value(bytesRead?: number): void {
    values++;
    if (values > mostValues) throw new DecodeLimitError(limits.values.refusal, values, bytesRead);
  }
  function message(type: string, bytesRead?: number): void {
    value(bytesRead);
    const limit = Object.hasOwn(limits.messages, type) ? limits.messages[type] : undefined;
    if (limit === undefined) return;
    const count = (counts.get(type) ?? 0) + 1;
    counts.set(type, count);
    if (count > limit.most) throw new DecodeLimitError(limit.refusal, values, bytesRead);
  }
  return { value, message, valuesRead: () => values };
}
