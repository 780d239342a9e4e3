/**
 * The limits an OTLP export request is read within (functions/otel/decode-limits.ts), counted while the
 * protobuf is decoded (otlp-protobuf.ts) and before a JSON request is read (otlp-json-count.ts): each limit
 * passes at its value and refuses one more, with the same message in both encodings, and the decoder stops
 * where the count passes — the security review's 5 KB gzip body of 5 MiB of two-byte fields (issue 30) is
 * refused after reading a bounded number of values, not decoded whole.
 */
import { gunzipSync } from "node:zlib";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import {
  type Filler,
  gzippedInflatingBody,
  jsonRequestOf,
  protobufRequestOf,
  type Signal,
} from "../../bench/fixtures/inflating-bodies.js";
import { ValidationError } from "../../functions/domain/errors.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { DecodeLimitError, type DecodeLimits } from "../../functions/otel/decode-limits.js";
import { OTLP_TRACE_SCHEMA } from "../../functions/otel/generated/otlp-trace-schema.js";
import { LOGS_SIGNAL } from "../../functions/otel/logs-signal.js";
import { TOO_MANY_LOG_RECORDS } from "../../functions/otel/otlp-logs.js";
import { decodeMessage } from "../../functions/otel/otlp-protobuf.js";
import { decodeOtlpRequest, type OtlpSignal } from "../../functions/otel/otlp-request.js";
import { TOO_MANY_SPANS } from "../../functions/otel/otlp-spans.js";
import { TRACE_SIGNAL } from "../../functions/otel/trace-signal.js";

const SIGNALS: Readonly<Record<Signal, OtlpSignal>> = { traces: TRACE_SIGNAL, logs: LOGS_SIGNAL };
const TOO_MANY_ATTRIBUTES = `A request may hold at most ${LIMITS.otlpAttributes} attributes; lower the exporter's batch size or its attribute count limit (OTEL_ATTRIBUTE_COUNT_LIMIT)`;
const TOO_MANY_VALUES = `A request may hold at most ${LIMITS.otlpValues} values (spans, log records, events, attributes, array items and their fields); lower the exporter's batch size`;

/** Each filler, its limit, and the values read before its first filler (the envelopes around it). */
const CASES: readonly (readonly [Signal, Filler, number, string, number])[] = [
  ["traces", "records", LIMITS.otlpSpans, TOO_MANY_SPANS, 2],
  ["traces", "attributes", LIMITS.otlpAttributes, TOO_MANY_ATTRIBUTES, 3],
  ["traces", "envelopes", LIMITS.otlpValues, TOO_MANY_VALUES, 0],
  ["logs", "records", LIMITS.otlpLogRecords, TOO_MANY_LOG_RECORDS, 2],
  ["logs", "attributes", LIMITS.otlpAttributes, TOO_MANY_ATTRIBUTES, 3],
  ["logs", "envelopes", LIMITS.otlpValues, TOO_MANY_VALUES, 0],
];

function decodeLimitErrorOf(decode: () => unknown): DecodeLimitError {
  try {
    decode();
  } catch (error) {
    if (error instanceof DecodeLimitError) return error;
    throw error;
  }
  throw new Error("decoded within its limits");
}

function validationErrorOf(decode: () => unknown): ValidationError {
  try {
    decode();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error("read within its limits");
}

describe("the protobuf decoder counts as it decodes", () => {
  it.each(CASES)("%s, %s: %i decode, one more is refused where it starts", (signal, filler, limit, message, before) => {
    const { schemas, requestType, limits } = SIGNALS[signal];
    expect(() => decodeMessage(protobufRequestOf(signal, filler, limit), schemas, requestType, limits)).not.toThrow();
    const over = protobufRequestOf(signal, filler, limit + 1);
    const error = decodeLimitErrorOf(() => decodeMessage(over, schemas, requestType, limits));
    expect(error.message).toBe(message);
    // Stopped at the start of the filler past the limit: every filler before it read, nothing after.
    expect(error.valuesRead).toBe(before + limit + 1);
    expect(error.bytesRead).toBe(over.length);
  });

  it.each(CASES)(
    "%s, %s: the review's 5 KB gzip body of 5 MiB is refused after reading at most the limit's worth",
    (signal, filler, limit, message, before) => {
      const gzipped = gzippedInflatingBody(signal, "protobuf", filler);
      const body = gunzipSync(gzipped);
      expect(gzipped.length).toBeLessThan(6 * 1024);
      expect(body.length).toBeGreaterThan(LIMITS.eventBodyBytes - 1024);
      expect(body.length).toBeLessThanOrEqual(LIMITS.eventBodyBytes);
      const { schemas, requestType, limits } = SIGNALS[signal];
      const error = decodeLimitErrorOf(() => decodeMessage(body, schemas, requestType, limits));
      expect(error.message).toBe(message);
      expect(error.valuesRead).toBe(before + limit + 1);
      // Two bytes a filler: the decoder read (limit + 1) of them and the envelopes, not the 5 MiB.
      expect(error.bytesRead).toBeLessThanOrEqual(2 * (limit + 1) + 16);
      // The route's reading of it: a 400 naming the limit.
      expect(validationErrorOf(() => decodeOtlpRequest(body, "protobuf", SIGNALS[signal])).message).toBe(message);
    },
  );

  it("counts every value, scalars and messages, and each repeat of a field", () => {
    const limits: DecodeLimits = { messages: {}, values: { most: 3, refusal: "too many" } };
    // A Status (3 values: the message, its code twice) within three values; with its message four.
    const status = new BinaryWriter().tag(3, WireType.Varint).int32(1).tag(3, WireType.Varint).int32(2).finish();
    const inSpan = (inner: Uint8Array) => new BinaryWriter().tag(15, WireType.LengthDelimited).bytes(inner).finish();
    expect(decodeMessage(inSpan(status), OTLP_TRACE_SCHEMA, "Span", limits)).toEqual({ status: { code: 2 } });
    const withMessage = new BinaryWriter().raw(status).tag(2, WireType.LengthDelimited).string("m").finish();
    const error = decodeLimitErrorOf(() => decodeMessage(inSpan(withMessage), OTLP_TRACE_SCHEMA, "Span", limits));
    expect(error.message).toBe("too many");
    expect(error.valuesRead).toBe(4);
  });

  it("does not count unknown fields, which are skipped unread", () => {
    const limits: DecodeLimits = { messages: {}, values: { most: 0, refusal: "too many" } };
    const unknown = new BinaryWriter()
      .tag(100, WireType.Varint)
      .uint64(2n ** 63n)
      .tag(101, WireType.LengthDelimited)
      .string("x".repeat(1000))
      .finish();
    expect(decodeMessage(unknown, OTLP_TRACE_SCHEMA, "Span", limits)).toEqual({});
  });
});

describe("both encodings refuse the same excess with the same message (decodeOtlpRequest: a 400)", () => {
  it.each(CASES)("%s, %s: %i read, one more refused", (signal, filler, limit, message) => {
    for (const encoding of ["protobuf", "json"] as const) {
      const requestOf = encoding === "protobuf" ? protobufRequestOf : jsonRequestOf;
      expect(() =>
        decodeOtlpRequest(Buffer.from(requestOf(signal, filler, limit)), encoding, SIGNALS[signal]),
      ).not.toThrow();
      const error = validationErrorOf(() =>
        decodeOtlpRequest(Buffer.from(requestOf(signal, filler, limit + 1)), encoding, SIGNALS[signal]),
      );
      expect(error.message, encoding).toBe(message);
    }
  });

  it("a malformed body is still a 400 saying so, not a limit", () => {
    const error = validationErrorOf(() => decodeOtlpRequest(Buffer.from([0x0a, 0x50, 0x0a]), "protobuf", TRACE_SIGNAL));
    expect(error.message).toBe("Request body is not a protobuf-encoded OTLP ExportTraceServiceRequest");
  });
});

describe("varints in plain numbers, bigint only past 2^53", () => {
  const intValue = (value: bigint) => {
    const anyValue = new BinaryWriter().tag(3, WireType.Varint).int64(value).finish();
    return decodeMessage(anyValue, OTLP_TRACE_SCHEMA, "AnyValue").intValue;
  };

  it.each([
    [0n, 0],
    [1n, 1],
    [-1n, -1],
    [2n ** 53n - 1n, Number.MAX_SAFE_INTEGER],
    [-(2n ** 53n) + 1n, Number.MIN_SAFE_INTEGER],
    [2n ** 53n, 2n ** 53n],
    [-(2n ** 53n), -(2n ** 53n)],
    [2n ** 63n - 1n, 2n ** 63n - 1n],
    [-(2n ** 63n), -(2n ** 63n)],
  ])("int64 %s decodes to %s", (value, decoded) => {
    expect(intValue(value)).toBe(decoded);
  });

  it("reads int32 and enums from their low 32 bits, bools from all 64", () => {
    const status = new BinaryWriter().tag(3, WireType.Varint).int32(-2).finish();
    expect(decodeMessage(status, OTLP_TRACE_SCHEMA, "Status").code).toBe(-2);
    const highBit = new BinaryWriter()
      .tag(2, WireType.Varint)
      .uint64(2n ** 40n)
      .finish();
    expect(decodeMessage(highBit, OTLP_TRACE_SCHEMA, "AnyValue").boolValue).toBe(true);
    const zero = new BinaryWriter().tag(2, WireType.Varint).uint64(0n).finish();
    expect(decodeMessage(zero, OTLP_TRACE_SCHEMA, "AnyValue").boolValue).toBe(false);
  });
});
