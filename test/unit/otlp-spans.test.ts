/**
 * Reading decoded OTLP export requests (functions/otel/otlp-spans.ts): both encodings' shapes (hex or
 * base64 ids, int64 as bigint / number / decimal text / {low, high}, enums as names or numbers), unknown
 * fields ignored, `__proto__` keys kept as keys, the nesting limit, per-span refusals and the 400s of an
 * envelope that is not an ExportTraceServiceRequest.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../functions/domain/errors.js";
import { LIMITS } from "../../functions/domain/limits.js";
import {
  ATTRIBUTE_DEPTH,
  readAnyValue,
  readExportRequest,
  readId,
  readNanosAsMs,
} from "../../functions/otel/otlp-spans.js";
import { id, jsonRequest, jsonSpan, nanos, T0, TRACE_ID } from "./otlp-fixtures.js";

const SPAN_ID = id(0xabc);

function readOne(spanFields: Record<string, unknown>, resource: Record<string, unknown> = {}) {
  const { spans, refused } = readExportRequest(jsonRequest([spanFields], resource));
  expect(refused).toEqual([]);
  expect(spans).toHaveLength(1);
  return spans[0] as NonNullable<(typeof spans)[0]>;
}

function refusalOf(spanFields: unknown) {
  const { spans, refused } = readExportRequest({
    resourceSpans: [{ scopeSpans: [{ spans: [spanFields] }] }],
  });
  expect(spans).toEqual([]);
  expect(refused).toHaveLength(1);
  return refused[0] as NonNullable<(typeof refused)[0]>;
}

describe("readId", () => {
  it("reads bytes, hex text (any case) and base64 text as lower-case hex", () => {
    const bytes = Uint8Array.from([0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3]);
    expect(readId(bytes, 8, "spanId")).toBe("deadbeef00010203");
    expect(readId("DEADBEEF00010203", 8, "spanId")).toBe("deadbeef00010203");
    expect(readId(Buffer.from(bytes).toString("base64"), 8, "spanId")).toBe("deadbeef00010203");
    expect(readId(Buffer.from(bytes).toString("base64").replace(/=+$/, ""), 8, "spanId")).toBe("deadbeef00010203");
    // A subarray of a larger buffer (as a protobuf reader hands out) reads only its own bytes.
    const larger = Buffer.from([9, 9, ...bytes, 9]);
    expect(readId(larger.subarray(2, 10), 8, "spanId")).toBe("deadbeef00010203");
  });

  it("treats empty and missing ids as unset", () => {
    for (const value of [undefined, null, "", new Uint8Array(0)])
      expect(readId(value, 8, "parentSpanId")).toBeUndefined();
  });

  it("refuses ids of the wrong size, all zeros, other types and base64url", () => {
    expect(() => readId("abcd", 8, "spanId")).toThrow("spanId must be 8 bytes (16 hex digits)");
    expect(() => readId(TRACE_ID, 8, "spanId")).toThrow("8 bytes");
    expect(() => readId("0".repeat(32), 16, "traceId")).toThrow("traceId must not be all zeros");
    expect(() => readId(new Uint8Array(8), 8, "spanId")).toThrow("all zeros");
    expect(() => readId(12345, 8, "spanId")).toThrow("8 bytes");
    const urlSafe = Buffer.from([0xfb, 0xff, 0xfe, 1, 2, 3, 4, 5]).toString("base64url");
    expect(() => readId(urlSafe, 8, "spanId")).toThrow("8 bytes");
  });

  it("property: hex and base64 of the same bytes read the same", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(8, 16),
        fc.uint8Array({ minLength: 16, maxLength: 16 }).filter((bytes) => bytes.some((byte) => byte !== 0)),
        (size, all) => {
          const bytes = all.subarray(0, size);
          fc.pre(bytes.some((byte) => byte !== 0));
          const hex = Buffer.from(bytes).toString("hex");
          expect(readId(bytes, size, "id")).toBe(hex);
          expect(readId(hex, size, "id")).toBe(hex);
          expect(readId(hex.toUpperCase(), size, "id")).toBe(hex);
          expect(readId(Buffer.from(bytes).toString("base64"), size, "id")).toBe(hex);
        },
      ),
    );
  });
});

describe("readNanosAsMs", () => {
  const ns = 1_700_000_000_123_456_789n;

  it("reads bigint, decimal text, numbers and {low, high} pairs, to whole milliseconds", () => {
    expect(readNanosAsMs(ns, "t")).toBe(1_700_000_000_123);
    expect(readNanosAsMs(String(ns), "t")).toBe(1_700_000_000_123);
    expect(readNanosAsMs(Number(ns), "t")).toBe(1_700_000_000_123);
    const low = Number(ns & 0xffffffffn) | 0; // signed, as protobufjs's Long keeps it
    const high = Number(ns >> 32n) | 0;
    expect(readNanosAsMs({ low, high, unsigned: true }, "t")).toBe(1_700_000_000_123);
  });

  it("refuses zero, negatives, fractions as text, and anything else", () => {
    // 1e300 and 2^64 ns: past what a fixed64 holds (an exception event's time of 1e300 made a whole export 503).
    for (const value of [
      0,
      0n,
      "0",
      -1,
      -1n,
      "-5",
      "1.5",
      "",
      "12abc",
      null,
      undefined,
      {},
      Number.NaN,
      Infinity,
      1e300,
      2n ** 64n,
      "18446744073709551616",
    ]) {
      expect(() => readNanosAsMs(value, "startTimeUnixNano"), String(value)).toThrow(
        "startTimeUnixNano must be a time in Unix nanoseconds",
      );
    }
  });
});

describe("readAnyValue", () => {
  it("reads every kind of value", () => {
    expect(readAnyValue({ stringValue: "s" })).toBe("s");
    expect(readAnyValue({ stringValue: "" })).toBe("");
    expect(readAnyValue({ boolValue: false })).toBe(false);
    expect(readAnyValue({ intValue: "42" })).toBe(42);
    expect(readAnyValue({ intValue: 42n })).toBe(42);
    expect(readAnyValue({ intValue: -7 })).toBe(-7);
    expect(readAnyValue({ intValue: "-9007199254740993" })).toBe("-9007199254740993");
    expect(readAnyValue({ intValue: 2n ** 63n - 1n })).toBe("9223372036854775807");
    expect(readAnyValue({ intValue: { low: -1, high: -1 } })).toBe(-1);
    expect(readAnyValue({ doubleValue: 1.5 })).toBe(1.5);
    expect(readAnyValue({ doubleValue: "2.5" })).toBe(2.5);
    expect(readAnyValue({ doubleValue: "NaN" })).toBe("NaN");
    expect(readAnyValue({ doubleValue: Number.POSITIVE_INFINITY })).toBe("Infinity");
    expect(readAnyValue({ bytesValue: Uint8Array.from([1, 2, 3]) })).toBe("AQID");
    expect(readAnyValue({ bytesValue: "AQID" })).toBe("AQID");
    expect(readAnyValue({ arrayValue: { values: [{ stringValue: "a" }, { intValue: "1" }, {}] } })).toEqual([
      "a",
      1,
      null,
    ]);
    expect(readAnyValue({ arrayValue: {} })).toEqual([]);
    expect(
      readAnyValue({
        kvlistValue: { values: [{ key: "k", value: { arrayValue: { values: [{ boolValue: true }] } } }] },
      }),
    ).toEqual({ k: [true] });
    expect(readAnyValue({})).toBeNull();
    expect(readAnyValue(undefined)).toBeNull();
    expect(readAnyValue({ stringValue: null, intValue: "3" })).toBe(3);
  });

  it("refuses values of the wrong type", () => {
    expect(() => readAnyValue({ stringValue: 1 })).toThrow("stringValue must be a string");
    expect(() => readAnyValue({ boolValue: "true" })).toThrow("boolValue must be a boolean");
    expect(() => readAnyValue({ intValue: "1.5" })).toThrow("intValue must be an integer");
    expect(() => readAnyValue({ doubleValue: "x" })).toThrow("doubleValue must be a number");
    expect(() => readAnyValue({ bytesValue: 5 })).toThrow("bytesValue must be base64 text");
    expect(() => readAnyValue({ arrayValue: { values: "no" } })).toThrow("arrayValue.values must be an array");
  });

  it("keeps a `__proto__` key of a key-value list as a plain own key", () => {
    const value = readAnyValue({
      kvlistValue: {
        values: [
          { key: "__proto__", value: { kvlistValue: { values: [{ key: "polluted", value: { boolValue: true } }] } } },
          { key: "constructor", value: { stringValue: "c" } },
        ],
      },
    }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.keys(value)).toEqual(["__proto__", "constructor"]);
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(value))).toEqual(JSON.parse('{"__proto__":{"polluted":true},"constructor":"c"}'));
  });

  it(`reads values nested ${ATTRIBUTE_DEPTH} levels and refuses deeper ones`, () => {
    const nest = (levels: number) => {
      let value: Record<string, unknown> = { stringValue: "leaf" };
      for (let level = 0; level < levels; level++) value = { arrayValue: { values: [value] } };
      return value;
    };
    expect(() => readAnyValue(nest(ATTRIBUTE_DEPTH))).not.toThrow();
    expect(() => readAnyValue(nest(ATTRIBUTE_DEPTH + 1))).toThrow(`nest at most ${ATTRIBUTE_DEPTH} levels`);
  });
});

describe("readExportRequest: spans", () => {
  it("reads a span of the OTLP JSON mapping with its resource", () => {
    const read = readOne(
      jsonSpan({
        spanId: SPAN_ID,
        parentSpanId: id(1),
        name: "chat gpt-4o",
        endMs: T0 + 250,
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 12 },
        events: [{ name: "gen_ai.choice", timeMs: T0 + 200, attributes: { index: 0 } }],
        status: { code: "STATUS_CODE_OK" },
      }),
      { "service.name": "agent-svc" },
    );
    expect(read).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      parentSpanId: id(1),
      name: "chat gpt-4o",
      startMs: T0,
      endMs: T0 + 250,
      attributes: new Map<string, unknown>([
        ["gen_ai.operation.name", "chat"],
        ["gen_ai.usage.input_tokens", 12],
      ]),
      events: [{ name: "gen_ai.choice", timeMs: T0 + 200, attributes: new Map([["index", 0]]) }],
      status: { code: 1, message: undefined },
      resource: new Map([["service.name", "agent-svc"]]),
      scope: "test",
    });
  });

  it("reads status codes as numbers or enum names, with the message", () => {
    const statusOf = (status: unknown) => readOne({ ...jsonSpan({ spanId: SPAN_ID, name: "s" }), status }).status;
    expect(statusOf(undefined)).toEqual({ code: 0 });
    expect(statusOf({})).toEqual({ code: 0, message: undefined });
    expect(statusOf({ code: "STATUS_CODE_UNSET" })).toEqual({ code: 0, message: undefined });
    expect(statusOf({ code: 2, message: "boom" })).toEqual({ code: 2, message: "boom" });
    expect(statusOf({ code: "STATUS_CODE_ERROR", message: "" })).toEqual({ code: 2, message: undefined });
    expect(refusalOf({ ...jsonSpan({ spanId: SPAN_ID, name: "s" }), status: { code: 3 } }).message).toBe(
      "status.code must be 0, 1 or 2",
    );
    expect(refusalOf({ ...jsonSpan({ spanId: SPAN_ID, name: "s" }), status: { code: "toString" } }).message).toBe(
      "status.code must be 0, 1 or 2",
    );
  });

  it("ignores unknown fields at every level", () => {
    const request = jsonRequest([
      { ...jsonSpan({ spanId: SPAN_ID, name: "s" }), futureField: { nested: true }, traceState: "x=y", flags: 257 },
    ]);
    const withExtras = {
      ...request,
      extra: 1,
      resourceSpans: request.resourceSpans.map((resourceSpans) => ({
        ...resourceSpans,
        schemaUrl: "https://opentelemetry.io/schemas/1.30.0",
        unknown: [1, 2],
        scopeSpans: resourceSpans.scopeSpans.map((scopeSpans) => ({ ...scopeSpans, unknown: "x" })),
      })),
    };
    const { spans, refused } = readExportRequest(withExtras);
    expect(refused).toEqual([]);
    expect(spans.map((read) => read.spanId)).toEqual([SPAN_ID]);
  });

  it("keeps `__proto__` and `constructor` attribute keys as plain keys", () => {
    const read = readOne({
      ...jsonSpan({ spanId: SPAN_ID, name: "s" }),
      attributes: [
        { key: "__proto__", value: { stringValue: "p" } },
        { key: "constructor", value: { intValue: "1" } },
        { key: "hasOwnProperty", value: { boolValue: true } },
      ],
    });
    expect(read.attributes.get("__proto__")).toBe("p");
    expect(read.attributes.get("constructor")).toBe(1);
    expect(read.attributes.get("hasOwnProperty")).toBe(true);
    expect(read.attributes.get("toString")).toBeUndefined();
  });

  it("reads an attribute without a key (protobuf leaves an empty key off the wire) under the key ''", () => {
    const read = readOne({
      ...jsonSpan({ spanId: SPAN_ID, name: "s" }),
      attributes: [{ value: { stringValue: "no key" } }, { key: null, value: { intValue: "1" } }, { key: "" }],
    });
    expect(read.attributes).toEqual(new Map([["", null]]));
    expect(
      readOne({ ...jsonSpan({ spanId: SPAN_ID, name: "s" }), attributes: [{ value: { boolValue: true } }] }).attributes,
    ).toEqual(new Map([["", true]]));
  });

  it("reads a missing or empty parentSpanId as a root", () => {
    expect(readOne(jsonSpan({ spanId: SPAN_ID, name: "s" })).parentSpanId).toBeUndefined();
    expect(readOne({ ...jsonSpan({ spanId: SPAN_ID, name: "s" }), parentSpanId: "" }).parentSpanId).toBeUndefined();
  });

  it("reads a span whose name is missing as unnamed", () => {
    const { name: _name, ...unnamed } = jsonSpan({ spanId: SPAN_ID, name: "s" });
    expect(readOne(unnamed).name).toBe("");
  });

  it("refuses a span it cannot read on its own, naming the span when its ids can be read", () => {
    const good = jsonSpan({ spanId: id(1), name: "good" });
    const badTimes = { ...jsonSpan({ spanId: id(2), name: "bad" }), endTimeUnixNano: nanos(T0 - 1) };
    const noSpanId = { ...jsonSpan({ spanId: id(3), name: "bad" }), spanId: undefined };
    const badAttributes = { ...jsonSpan({ spanId: id(4), name: "bad" }), attributes: [{ key: 4, value: {} }] };
    const badEvent = { ...jsonSpan({ spanId: id(5), name: "bad" }), events: [{ name: "e" }] };
    const { spans, refused } = readExportRequest(jsonRequest([good, badTimes, noSpanId, badAttributes, badEvent, 7]));
    expect(spans.map((read) => read.spanId)).toEqual([id(1)]);
    expect(refused).toEqual([
      {
        traceId: TRACE_ID,
        spanId: id(2),
        message: "endTimeUnixNano must not be before startTimeUnixNano",
      },
      { traceId: TRACE_ID, spanId: undefined, message: "A span needs a traceId and a spanId" },
      { traceId: TRACE_ID, spanId: id(4), message: "Each attribute must have a string key" },
      { traceId: TRACE_ID, spanId: id(5), message: "events.timeUnixNano must be a time in Unix nanoseconds" },
      { message: "Each span must be an object" },
    ]);
    expect(refusalOf({ ...good, traceId: "zz" }).message).toBe("traceId must be 16 bytes (32 hex digits)");
    expect(refusalOf({ ...good, events: {} }).message).toBe("events must be an array");
  });

  it("refuses every span of a resource whose attributes cannot be read", () => {
    const { spans, refused } = readExportRequest({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 1 }] },
          scopeSpans: [{ spans: [jsonSpan({ spanId: id(1), name: "a" }), jsonSpan({ spanId: id(2), name: "b" })] }],
        },
        { scopeSpans: [{ spans: [jsonSpan({ spanId: id(3), name: "c" })] }] },
      ],
    });
    expect(spans.map((read) => read.spanId)).toEqual([id(3)]);
    expect(refused.map((refusal) => [refusal.spanId, refusal.message])).toEqual([
      [id(1), "resource: Each attribute must have a string key"],
      [id(2), "resource: Each attribute must have a string key"],
    ]);
  });

  it("refuses a span whose attribute nests too deep, and reads the others", () => {
    let deep: Record<string, unknown> = { stringValue: "leaf" };
    for (let level = 0; level <= ATTRIBUTE_DEPTH + 1; level++) deep = { arrayValue: { values: [deep] } };
    const { spans, refused } = readExportRequest(
      jsonRequest([
        { ...jsonSpan({ spanId: id(1), name: "deep" }), attributes: [{ key: "deep", value: deep }] },
        jsonSpan({ spanId: id(2), name: "flat" }),
      ]),
    );
    expect(spans.map((read) => read.spanId)).toEqual([id(2)]);
    expect(refused).toEqual([
      { traceId: TRACE_ID, spanId: id(1), message: `Attribute values must nest at most ${ATTRIBUTE_DEPTH} levels` },
    ]);
  });

  it("reads an empty request and empty lists as no spans", () => {
    expect(readExportRequest({})).toEqual({ spans: [], refused: [] });
    expect(readExportRequest({ resourceSpans: [] })).toEqual({ spans: [], refused: [] });
    expect(readExportRequest({ resourceSpans: [{}] })).toEqual({ spans: [], refused: [] });
    expect(readExportRequest({ resourceSpans: [{ scopeSpans: [{}] }] })).toEqual({ spans: [], refused: [] });
  });
});

describe("readExportRequest: the envelope (400)", () => {
  it.each([
    ["null", null],
    ["an array", []],
    ["text", "resourceSpans"],
    ["resourceSpans not a list", { resourceSpans: {} }],
    ["a resourceSpans entry not an object", { resourceSpans: [1] }],
    ["scopeSpans not a list", { resourceSpans: [{ scopeSpans: "x" }] }],
    ["a scopeSpans entry not an object", { resourceSpans: [{ scopeSpans: [null] }] }],
    ["spans not a list", { resourceSpans: [{ scopeSpans: [{ spans: 5 }] }] }],
  ])("is a ValidationError: %s", (_what, request) => {
    expect(() => readExportRequest(request)).toThrow(ValidationError);
  });

  it(`accepts ${LIMITS.otlpSpans} spans and refuses the request with one more`, () => {
    const spans = (count: number) =>
      Array.from({ length: count }, (_, index) => jsonSpan({ spanId: id(index + 1), name: "s" }));
    expect(readExportRequest(jsonRequest(spans(LIMITS.otlpSpans))).spans).toHaveLength(LIMITS.otlpSpans);
    // Counted across resources and scopes.
    const split = {
      resourceSpans: [
        { scopeSpans: [{ spans: spans(LIMITS.otlpSpans / 2) }] },
        { scopeSpans: [{ spans: spans(LIMITS.otlpSpans / 2) }, { spans: spans(1) }] },
      ],
    };
    expect(() => readExportRequest(split)).toThrow(ValidationError);
    expect(() => readExportRequest(jsonRequest(spans(LIMITS.otlpSpans + 1)))).toThrow(
      `A request may hold at most ${LIMITS.otlpSpans} spans`,
    );
  });
});
