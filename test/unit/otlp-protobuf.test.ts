/**
 * The protobuf decoder (functions/otel/otlp-protobuf.ts) against protobufjs and the official protos in
 * proto/: requests encoded by protobufjs (and by the OpenTelemetry SDK's own OTLP exporters) decode to
 * what protobufjs decodes, and read to the same spans as the same request in the OTLP JSON mapping.
 * Unknown fields are skipped; wrong wire types, truncated lengths and too-deep nesting throw.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planTraces as planNormalised } from "../../functions/domain/genai-trace-plan.js";
import type { OtelSpan } from "../../functions/domain/otel-span.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { MAX_DEPTH, ProtobufDecodeError } from "../../functions/otel/otlp-protobuf.js";
import { ATTRIBUTE_DEPTH, readExportRequest } from "../../functions/otel/otlp-spans.js";
import { decodeExportTraceRequest } from "../../functions/otel/trace-signal.js";
import { SCHEMA_FILES } from "../../scripts/generate-otlp-schema.js";
import { encodeRequest, id, jsonRequest, jsonSpan, otlpRoot, requestType, T0, TRACE_ID } from "./otlp-fixtures.js";

const planTraces = (spans: readonly OtelSpan[]) => planNormalised(spans.map(normaliseSpan));

/** JSON-comparable: bigint, Long and int64 as decimal text, bytes as base64. */
function normalized(value: unknown): unknown {
  if (typeof value === "bigint") return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(normalized);
  if (typeof value === "object" && value !== null) {
    // int64 (AnyValue.intValue) decodes to a number when it is a safe integer, protobufjs's to text.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, key === "intValue" ? String(item) : normalized(item)]),
    );
  }
  return value;
}

function protobufjsDecoded(bytes: Uint8Array): unknown {
  const type = requestType();
  return type.toObject(type.decode(bytes), { longs: String, bytes: String, enums: Number });
}

/** The names of the fields the trace schema leaves out (scripts/generate-otlp-schema.ts `unread`). */
const UNREAD_NAMES = new Set(
  (SCHEMA_FILES.find((file) => file.schemaConstant === "OTLP_TRACE_SCHEMA")?.unread ?? []).map(
    (entry) => entry.split(".").at(-1) as string,
  ),
);

/** A decoded request without the fields the schema leaves out (none of their names is read anywhere). */
function withoutUnread(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnread);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !UNREAD_NAMES.has(key))
      .map(([key, inner]) => [key, withoutUnread(inner)]),
  );
}

/** The same request read through both encodings. */
function readBoth(request: unknown) {
  const fromJson = readExportRequest(JSON.parse(JSON.stringify(request)));
  const fromProtobuf = readExportRequest(decodeExportTraceRequest(encodeRequest(request)));
  return { fromJson, fromProtobuf };
}

const RICH_REQUEST = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          { key: "service.name", value: { stringValue: "travel-agent" } },
          { key: "process.pid", value: { intValue: "4242" } },
          { key: "telemetry.sdk.language", value: { stringValue: "nodejs" } },
        ],
        droppedAttributesCount: 1,
        entityRefs: [{ type: "service", idKeys: ["service.name"], descriptionKeys: [] }],
      },
      schemaUrl: "https://opentelemetry.io/schemas/1.37.0",
      scopeSpans: [
        {
          scope: { name: "agent-framework", version: "2.0.0", attributes: [{ key: "s", value: { boolValue: true } }] },
          schemaUrl: "https://opentelemetry.io/schemas/1.37.0",
          spans: [
            {
              ...jsonSpan({
                spanId: id(1),
                name: "invoke_agent travel-agent",
                endMs: T0 + 9000,
                attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel-agent" },
                status: { code: 2, message: "gave up" },
                events: [
                  {
                    name: "exception",
                    attributes: {
                      "exception.type": "Error",
                      "exception.message": "gave up",
                      "exception.stacktrace": "…",
                    },
                  },
                ],
              }),
              kind: 2,
              traceState: "vendor=value",
              flags: 0x101,
              droppedAttributesCount: 3,
              droppedEventsCount: 0,
              droppedLinksCount: 2,
              links: [
                {
                  traceId: "0af7651916cd43dd8448eb211c80319c",
                  spanId: "b7ad6b7169203331",
                  traceState: "a=b",
                  attributes: [{ key: "link", value: { stringValue: "x" } }],
                  flags: 1,
                },
              ],
            },
            jsonSpan({
              spanId: id(2),
              parentSpanId: id(1),
              name: "chat gpt-4o",
              startMs: T0 + 100,
              endMs: T0 + 1500,
              attributes: {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.request.temperature": 0.7,
                "gen_ai.usage.input_tokens": 1234,
                "gen_ai.usage.output_tokens": 56,
                "gen_ai.response.finish_reasons": ["stop"],
                "gen_ai.input.messages": '[{"role":"user","parts":[{"type":"text","content":"Trip to Oslo?"}]}]',
                "gen_ai.output.messages": '[{"role":"assistant","parts":[{"type":"text","content":"Sure."}]}]',
                negative: -42,
                big: 2n ** 62n,
                flag: false,
                empty: "",
                bytes: Uint8Array.from([0, 1, 254, 255]),
                nested: { list: [1, "two", { three: 3.5 }], ["__proto__"]: { x: 1 } },
                ["__proto__"]: "proto-key",
              },
              status: { code: 1 },
            }),
            jsonSpan({
              spanId: id(3),
              parentSpanId: id(1),
              name: "execute_tool search_flights",
              startMs: T0 + 2000,
              endMs: T0 + 2500,
              attributes: {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.call.arguments": '{"to":"OSL"}',
                "gen_ai.tool.call.result": "[]",
              },
              events: [{ name: "gen_ai.user.message", attributes: { content: "hi" } }],
            }),
            {
              ...jsonSpan({ spanId: id(4), parentSpanId: id(1), name: "special doubles" }),
              attributes: [
                { key: "nan", value: { doubleValue: "NaN" } },
                { key: "inf", value: { doubleValue: "Infinity" } },
                { key: "whole", value: { doubleValue: 2 } },
                { key: "nothing", value: {} },
                { key: "no-value" },
              ],
            },
          ],
        },
      ],
    },
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "other" } }] },
      scopeSpans: [
        { spans: [jsonSpan({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: id(9), name: "chat m" })] },
        { spans: [] },
      ],
    },
  ],
};

describe("decodeExportTraceRequest against protobufjs", () => {
  it("decodes what protobufjs encodes to what protobufjs decodes (JSON field names, bigint, numbers, bytes), but for the fields never read", () => {
    const bytes = encodeRequest(RICH_REQUEST);
    const decoded = decodeExportTraceRequest(bytes);
    expect(normalized(decoded)).toEqual(withoutUnread(normalized(protobufjsDecoded(bytes))));
    const span = (decoded.resourceSpans as { scopeSpans: { spans: Record<string, unknown>[] }[] }[])[0]?.scopeSpans[0]
      ?.spans[0];
    expect(span?.traceId).toBeInstanceOf(Uint8Array);
    expect(typeof span?.startTimeUnixNano).toBe("bigint");
    const resource = (decoded.resourceSpans as { resource: { attributes: unknown[] } }[])[0]?.resource;
    expect(resource?.attributes).toContainEqual({ key: "process.pid", value: { intValue: 4242 } });
    // Skipped as unknown fields (scripts/generate-otlp-schema.ts `unread`), links and all.
    expect(span?.kind).toBeUndefined();
    expect(span?.links).toBeUndefined();
  });

  it("reads to the same spans as the OTLP JSON request", () => {
    const { fromJson, fromProtobuf } = readBoth(RICH_REQUEST);
    expect(fromJson.refused).toEqual([]);
    expect(fromJson.spans).toHaveLength(5);
    expect(fromProtobuf).toEqual(fromJson);
    expect(planTraces(fromProtobuf.spans)).toEqual(planTraces(fromJson.spans));
    const chat = fromProtobuf.spans[1];
    expect(chat?.attributes.get("big")).toBe(String(2n ** 62n));
    expect(chat?.attributes.get("bytes")).toBe("AAH+/w==");
    expect(chat?.attributes.get("__proto__")).toBe("proto-key");
    expect(chat?.attributes.get("nested")).toEqual(JSON.parse('{"list":[1,"two",{"three":3.5}],"__proto__":{"x":1}}'));
    const doubles = fromProtobuf.spans[3];
    expect(doubles?.attributes.get("nan")).toBe("NaN");
    expect(doubles?.attributes.get("inf")).toBe("Infinity");
    expect(doubles?.attributes.get("whole")).toBe(2);
    expect(doubles?.attributes.get("nothing")).toBeNull();
    expect(doubles?.attributes.get("no-value")).toBeNull();
  });

  it("refuses the same spans for the same reasons", () => {
    const request = jsonRequest([
      jsonSpan({ spanId: id(1), name: "ok" }),
      { ...jsonSpan({ spanId: id(2), name: "backwards" }), endTimeUnixNano: "1" },
      { ...jsonSpan({ spanId: id(3), name: "zero trace" }), traceId: "0".repeat(32) },
      { ...jsonSpan({ spanId: id(4), name: "bad status" }), status: { code: 7 } },
      { ...jsonSpan({ spanId: id(5), name: "short id" }), spanId: "abcd" },
    ]);
    const { fromJson, fromProtobuf } = readBoth(request);
    expect(fromJson.spans.map((span) => span.spanId)).toEqual([id(1)]);
    expect(fromJson.refused).toHaveLength(4);
    expect(fromProtobuf).toEqual(fromJson);
  });

  it("property: any request reads the same through both encodings", () => {
    const key = fc.oneof(
      fc.constantFrom("gen_ai.operation.name", "gen_ai.usage.input_tokens", "__proto__", "constructor", "user.id"),
      fc.string({ maxLength: 8 }),
    );
    const scalar = fc.oneof(
      fc.string({ maxLength: 12 }).map((stringValue) => ({ stringValue })),
      fc.boolean().map((boolValue) => ({ boolValue })),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value) => ({ intValue: String(value) })),
      fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .filter((value) => !Object.is(value, -0))
        .map((doubleValue) => ({ doubleValue })),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => ({ bytesValue: Buffer.from(bytes).toString("base64") })),
    );
    const { value } = fc.letrec<{ value: Record<string, unknown> }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        scalar,
        fc.array(tie("value"), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
        fc
          .array(fc.tuple(key, tie("value")), { maxLength: 3 })
          .map((entries) => ({ kvlistValue: { values: entries.map(([k, v]) => ({ key: k, value: v })) } })),
      ),
    }));
    const attributes = fc
      .array(fc.tuple(key, value), { maxLength: 4 })
      .map((entries) => entries.map(([k, v]) => ({ key: k, value: v })));
    const span = fc.record({
      traceId: fc.constantFrom(TRACE_ID, "0af7651916cd43dd8448eb211c80319c"),
      spanId: fc.integer({ min: 1, max: 50 }).map(id),
      parentSpanId: fc.option(fc.integer({ min: 1, max: 50 }).map(id), { nil: undefined }),
      name: fc.string({ maxLength: 20 }),
      startTimeUnixNano: fc.bigInt({ min: 1n, max: 2n ** 62n }).map(String),
      durationNanos: fc.bigInt({ min: -5n, max: 10n ** 12n }),
      attributes,
      events: fc.array(
        fc.record({
          timeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 62n }).map(String),
          name: fc.string({ maxLength: 10 }),
          attributes,
        }),
        { maxLength: 2 },
      ),
      status: fc.record({ code: fc.constantFrom(0, 1, 2, 3), message: fc.string({ maxLength: 10 }) }),
    });
    fc.assert(
      fc.property(fc.array(span, { maxLength: 6 }), attributes, (spans, resource) => {
        const request = {
          resourceSpans: [
            {
              resource: { attributes: resource },
              scopeSpans: [
                {
                  spans: spans.map(({ durationNanos, ...fields }) => ({
                    ...fields,
                    endTimeUnixNano: String(BigInt(fields.startTimeUnixNano) + durationNanos),
                  })),
                },
              ],
            },
          ],
        };
        fc.pre(spans.every((s) => BigInt(s.startTimeUnixNano) + s.durationNanos >= 0n));
        const { fromJson, fromProtobuf } = readBoth(request);
        expect(fromProtobuf).toEqual(fromJson);
        expect(() => planTraces(fromProtobuf.spans)).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});

/** A length-delimited field holding `bytes`. */
function field(number: number, bytes: Uint8Array): Uint8Array {
  return new BinaryWriter().tag(number, WireType.LengthDelimited).bytes(bytes).finish();
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

/** A request of one span whose own bytes are `spanBytes`. */
function requestOfSpan(spanBytes: Uint8Array): Uint8Array {
  return field(1, field(2, field(2, spanBytes)));
}

function spanBytes(fields: Record<string, unknown>): Uint8Array {
  const type = otlpRoot().lookupType("opentelemetry.proto.trace.v1.Span");
  const object = {
    ...fields,
    traceId: Buffer.from(fields.traceId as string, "hex"),
    spanId: Buffer.from(fields.spanId as string, "hex"),
  };
  return type.encode(type.fromObject(object)).finish();
}

const UNKNOWN_FIELDS = new BinaryWriter()
  .tag(100, WireType.Varint)
  .uint64(2n ** 63n)
  .tag(101, WireType.Bit64)
  .fixed64(7n)
  .tag(102, WireType.LengthDelimited)
  .string("future")
  .tag(103, WireType.Bit32)
  .fixed32(9)
  .tag(104, WireType.StartGroup)
  .tag(1, WireType.Varint)
  .uint32(1)
  .tag(104, WireType.EndGroup)
  .finish();

describe("decodeExportTraceRequest: the wire", () => {
  it("skips unknown fields of every wire type, at the top and inside a span", () => {
    const span = spanBytes(jsonSpan({ spanId: id(1), name: "s" }));
    const bytes = concat(UNKNOWN_FIELDS, requestOfSpan(concat(UNKNOWN_FIELDS, span, UNKNOWN_FIELDS)), UNKNOWN_FIELDS);
    const { spans, refused } = readExportRequest(decodeExportTraceRequest(bytes));
    expect(refused).toEqual([]);
    // The same span as the JSON mapping's, but for the scope's name (the wire request here has no scope).
    const { scope, ...fromJson } = readExportRequest(jsonRequest([jsonSpan({ spanId: id(1), name: "s" })]))
      .spans[0] as OtelSpan;
    expect(scope).toBe("test");
    expect(spans).toEqual([fromJson]);
  });

  it("decodes an empty body as an empty request", () => {
    expect(decodeExportTraceRequest(new Uint8Array(0))).toEqual({});
    expect(readExportRequest(decodeExportTraceRequest(new Uint8Array(0)))).toEqual({ spans: [], refused: [] });
  });

  it("keeps the last value of a repeated scalar field, and appends repeated messages", () => {
    const span = spanBytes(jsonSpan({ spanId: id(1), name: "first" }));
    const renamed = new BinaryWriter().tag(5, WireType.LengthDelimited).string("second").finish();
    const twoSpans = concat(
      requestOfSpan(concat(span, renamed)),
      requestOfSpan(spanBytes(jsonSpan({ spanId: id(2), name: "x" }))),
    );
    const { spans } = readExportRequest(decodeExportTraceRequest(twoSpans));
    expect(spans.map((s) => [s.spanId, s.name])).toEqual([
      [id(1), "second"],
      [id(2), "x"],
    ]);
  });

  it("throws on a scalar of the wrong wire type", () => {
    const traceIdAsVarint = new BinaryWriter().tag(1, WireType.Varint).uint32(5).finish();
    expect(() => decodeExportTraceRequest(requestOfSpan(traceIdAsVarint))).toThrow(ProtobufDecodeError);
    expect(() => decodeExportTraceRequest(requestOfSpan(traceIdAsVarint))).toThrow("traceId: wrong wire type");
    const startAsVarint = new BinaryWriter().tag(7, WireType.Varint).uint64(1n).finish();
    expect(() => decodeExportTraceRequest(requestOfSpan(startAsVarint))).toThrow("startTimeUnixNano: wrong wire type");
  });

  it("throws on a message field of the wrong wire type", () => {
    const resourceSpansAsVarint = new BinaryWriter().tag(1, WireType.Varint).uint32(1).finish();
    expect(() => decodeExportTraceRequest(resourceSpansAsVarint)).toThrow("resourceSpans: wrong wire type");
  });

  it("throws on a length past the end of the body or of its message", () => {
    const bytes = encodeRequest(RICH_REQUEST);
    expect(() => decodeExportTraceRequest(bytes.subarray(0, bytes.length - 1))).toThrow();
    // A string whose length runs past the end of its span (but not of the body).
    const span = new BinaryWriter().tag(5, WireType.LengthDelimited).uint32(10).raw(Buffer.from("abc")).finish();
    const inner = concat(field(2, span), new Uint8Array(20));
    expect(() => decodeExportTraceRequest(field(1, field(2, inner)))).toThrow(
      "A field runs past the end of its message",
    );
    // A message length far past the end.
    const huge = new BinaryWriter().tag(1, WireType.LengthDelimited).uint32(0xffffffff).finish();
    expect(() => decodeExportTraceRequest(huge)).toThrow("A length runs past the end of the body");
  });

  it("reads a length prefix as the 64-bit varint it is: 2^62 (2^32 + 3) is past the end, not 0 (3) (issue 21)", () => {
    // The wire reader's uint32() keeps the low 32 bits: these bodies used to decode as an empty request (a 200).
    const bare = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .uint64(2n ** 62n)
      .finish();
    expect(() => decodeExportTraceRequest(bare)).toThrow("A length runs past the end of the body");
    for (const length of [2n ** 62n, 2n ** 32n, 2n ** 32n + 3n]) {
      const message = new BinaryWriter()
        .tag(1, WireType.LengthDelimited)
        .uint64(length)
        .raw(new Uint8Array(3))
        .finish();
      expect(() => decodeExportTraceRequest(message), String(length)).toThrow("A length runs past the end of the body");
      const name = new BinaryWriter().tag(1, WireType.LengthDelimited).uint64(length).raw(Buffer.from("abc")).finish();
      const inSpan = field(1, field(2, field(2, concat(name))));
      expect(() => decodeExportTraceRequest(inSpan), `string of ${length}`).toThrow(
        "A length runs past the end of the body",
      );
    }
  });

  it("property: every proper prefix of an encoded request throws", () => {
    const bytes = encodeRequest(jsonRequest([jsonSpan({ spanId: id(1), name: "s", attributes: { a: [1, 2] } })]));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: bytes.length - 1 }), (length) => {
        expect(() => decodeExportTraceRequest(bytes.subarray(0, length))).toThrow();
      }),
    );
  });

  it("property: arbitrary bytes decode or throw, and a decoded result always reads", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        let decoded: Record<string, unknown>;
        try {
          decoded = decodeExportTraceRequest(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
          return;
        }
        try {
          readExportRequest(decoded);
        } catch (error) {
          expect((error as Error).name).toBe("ValidationError");
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("throws on an illegal tag (field number 0)", () => {
    expect(() => decodeExportTraceRequest(Uint8Array.from([0x00, 0x00]))).toThrow();
  });
});

describe("decodeExportTraceRequest: nesting", () => {
  function nestedValue(levels: number, container: "array" | "kvlist"): Record<string, unknown> {
    let value: Record<string, unknown> = { stringValue: "leaf" };
    for (let level = 0; level < levels; level++) {
      value =
        container === "array"
          ? { arrayValue: { values: [value] } }
          : { kvlistValue: { values: [{ key: `k${level}`, value }] } };
    }
    return value;
  }

  function withValue(value: Record<string, unknown>, where: "span" | "event") {
    const attributes = [{ key: "deep", value }];
    const span = jsonSpan({ spanId: id(1), name: "deep" });
    return jsonRequest([
      where === "span"
        ? { ...span, attributes }
        : { ...span, events: [{ name: "e", timeUnixNano: span.startTimeUnixNano, attributes }] },
    ]);
  }

  it.each([
    ["array", "span"],
    ["array", "event"],
    ["kvlist", "span"],
    ["kvlist", "event"],
  ] as const)(
    `reads %s values nested ${ATTRIBUTE_DEPTH} levels in a %s attribute as the JSON path does`,
    (container, where) => {
      const { fromJson, fromProtobuf } = readBoth(withValue(nestedValue(ATTRIBUTE_DEPTH, container), where));
      expect(fromJson.refused).toEqual([]);
      expect(fromProtobuf).toEqual(fromJson);
    },
  );

  it.each(["array", "kvlist"] as const)(
    "refuses one level deeper as the JSON path does: the span alone (%s)",
    (container) => {
      const { fromJson, fromProtobuf } = readBoth(withValue(nestedValue(ATTRIBUTE_DEPTH + 1, container), "event"));
      expect(fromJson.refused).toHaveLength(1);
      expect(fromProtobuf).toEqual(fromJson);
    },
  );

  it(`throws on messages nested deeper than ${MAX_DEPTH} levels (the request: a 400)`, () => {
    let value: Uint8Array = new BinaryWriter().tag(1, WireType.LengthDelimited).string("leaf").finish();
    // AnyValue.arrayValue (5) → ArrayValue.values (1) → AnyValue …, far past the limit.
    for (let level = 0; level < MAX_DEPTH; level++) value = field(5, field(1, value));
    const keyValue = concat(
      new BinaryWriter().tag(1, WireType.LengthDelimited).string("deep").finish(),
      field(2, value),
    );
    const span = concat(spanBytes(jsonSpan({ spanId: id(1), name: "s" })), field(9, keyValue));
    expect(() => decodeExportTraceRequest(requestOfSpan(span))).toThrow(
      `Messages nest deeper than ${MAX_DEPTH} levels`,
    );
  });
});

describe("what the OpenTelemetry SDK's exporters send", () => {
  async function captureExport(
    makeExporter: (url: string) => {
      export: (spans: ReadableSpan[], done: (result: { code: number }) => void) => void;
      shutdown: () => Promise<void>;
    },
    spans: ReadableSpan[],
  ): Promise<{ contentType: string | undefined; body: Buffer }> {
    let captured: { contentType: string | undefined; body: Buffer } | undefined;
    const server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        captured = { contentType: request.headers["content-type"], body: Buffer.concat(chunks) };
        const json = request.headers["content-type"]?.includes("json") === true;
        response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
        response.end(json ? "{}" : Buffer.alloc(0));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const exporter = makeExporter(`http://127.0.0.1:${port}/api/otel/v1/traces`);
      const result = await new Promise<{ code: number }>((resolve) => exporter.export(spans, resolve));
      expect(result.code).toBe(0);
      await exporter.shutdown();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    if (captured === undefined) throw new Error("the exporter sent nothing");
    return captured;
  }

  it("http/protobuf and http/json bodies of the same spans read to the same spans and plan", async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": "travel-agent", "user.id": "u-1" }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    const tracer = provider.getTracer("test");
    const agent = tracer.startSpan("invoke_agent travel-agent", {
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel-agent" },
    });
    const inside = trace.setSpan(context.active(), agent);
    const chat = tracer.startSpan(
      "chat gpt-4o",
      {
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "openai",
          "gen_ai.usage.input_tokens": 100,
          "gen_ai.usage.output_tokens": 20,
          "gen_ai.response.finish_reasons": ["stop"],
          "gen_ai.request.temperature": 0.5,
        },
      },
      inside,
    );
    chat.end();
    const tool = tracer.startSpan(
      "execute_tool search",
      { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.arguments": '{"q":"oslo"}' } },
      inside,
    );
    tool.recordException(new Error("no results"));
    tool.setStatus({ code: SpanStatusCode.ERROR, message: "no results" });
    tool.end();
    agent.setStatus({ code: SpanStatusCode.OK });
    agent.end();
    await provider.forceFlush();
    const finished = memory.getFinishedSpans();
    expect(finished).toHaveLength(3);

    const proto = await captureExport((url) => new ProtoExporter({ url }), finished);
    const json = await captureExport((url) => new JsonExporter({ url }), finished);
    expect(proto.contentType).toMatch(/^application\/x-protobuf/);
    expect(json.contentType).toMatch(/^application\/json/);
    const fromProtobuf = readExportRequest(decodeExportTraceRequest(proto.body));
    const fromJson = readExportRequest(JSON.parse(json.body.toString("utf8")));
    expect(fromProtobuf.refused).toEqual([]);
    expect(fromProtobuf).toEqual(fromJson);
    const [plan] = planTraces(fromProtobuf.spans);
    expect(plan?.start).toMatchObject({ agentName: "travel-agent", userId: "u-1", provisionalName: false });
    expect(plan?.end?.status).toBe("completed");
    expect(plan?.events.map((planned) => planned.event.eventType)).toEqual(["llm_decision", "tool_call", "error"]);
    await provider.shutdown();
  });
});
