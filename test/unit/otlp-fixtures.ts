/**
 * Spans and OTLP export requests for the OTLP unit tests: OtelSpans for the pure plan, OTLP JSON requests
 * (hex ids, nanoseconds as decimal text) and the same requests encoded as protobuf with protobufjs from
 * the official protos in proto/.
 */
import { join } from "node:path";
import protobuf from "protobufjs";
import type { Attributes, AttributeValue, OtelSpan, SpanEvent } from "../../functions/domain/otel-span.js";

export const PROTO_DIR = join(import.meta.dirname, "../../proto");
export const SERVICE_PROTO = "opentelemetry/proto/collector/trace/v1/trace_service.proto";

export const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
export const OTHER_TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const T0 = Date.UTC(2030, 5, 1, 12, 0, 0);

let loadedRoot: protobuf.Root | undefined;

/** The official OTLP protos, loaded once with protobufjs. */
export function otlpRoot(): protobuf.Root {
  if (loadedRoot === undefined) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
    root.loadSync(SERVICE_PROTO);
    root.resolveAll();
    loadedRoot = root;
  }
  return loadedRoot;
}

export function requestType(): protobuf.Type {
  return otlpRoot().lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

export function responseType(): protobuf.Type {
  return otlpRoot().lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");
}

const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

/** protobufjs's input for an OTLP JSON request: hex ids become bytes (protobufjs reads strings as base64). */
function protobufjsObject(value: unknown, key?: string): unknown {
  if (typeof value === "string" && key !== undefined && ID_FIELDS.has(key)) return Buffer.from(value, "hex");
  if (Array.isArray(value)) return value.map((item) => protobufjsObject(item));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, protobufjsObject(item, name)]));
  }
  return value;
}

/** An OTLP JSON request, encoded as protobuf by protobufjs. */
export function encodeRequest(jsonRequest: unknown): Uint8Array {
  const type = requestType();
  const object = protobufjsObject(jsonRequest) as Record<string, unknown>;
  const problem = type.verify(type.fromObject(object));
  if (problem !== null) throw new Error(problem);
  return type.encode(type.fromObject(object)).finish();
}

/** An OTLP JSON AnyValue. */
export function anyValue(value: unknown): Record<string, unknown> {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "bigint") return { intValue: String(value) };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value).toString("base64") };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (typeof value === "object" && value !== null) return { kvlistValue: { values: keyValues(value) } };
  return {};
}

/** OTLP JSON KeyValues of an object's entries. */
export function keyValues(object: object): Record<string, unknown>[] {
  return Object.entries(object).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export function nanos(ms: number): string {
  return `${BigInt(ms) * 1_000_000n}`;
}

export interface JsonSpanInput {
  traceId?: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs?: number;
  endMs?: number;
  attributes?: Record<string, unknown>;
  events?: { name: string; timeMs?: number; attributes?: Record<string, unknown> }[];
  status?: { code?: number | string; message?: string };
  kind?: number;
}

/** A span in the OTLP JSON mapping. */
export function jsonSpan(input: JsonSpanInput): Record<string, unknown> {
  const startMs = input.startMs ?? T0;
  return {
    traceId: input.traceId ?? TRACE_ID,
    spanId: input.spanId,
    ...(input.parentSpanId === undefined ? {} : { parentSpanId: input.parentSpanId }),
    name: input.name,
    kind: input.kind ?? 1,
    startTimeUnixNano: nanos(startMs),
    endTimeUnixNano: nanos(input.endMs ?? startMs + 1000),
    attributes: keyValues(input.attributes ?? {}),
    events: (input.events ?? []).map((event) => ({
      timeUnixNano: nanos(event.timeMs ?? startMs + 10),
      name: event.name,
      attributes: keyValues(event.attributes ?? {}),
    })),
    ...(input.status === undefined ? {} : { status: input.status }),
  };
}

/** An OTLP JSON ExportTraceServiceRequest of one resource and one scope. */
export function jsonRequest(spans: unknown[], resource: Record<string, unknown> = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues(resource) },
        scopeSpans: [{ scope: { name: "test", version: "1.0.0" }, spans }],
      },
    ],
  };
}

function attributes(object: Record<string, AttributeValue> = {}): Attributes {
  return new Map(Object.entries(object));
}

export interface SpanInput {
  traceId?: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs?: number;
  endMs?: number;
  attributes?: Record<string, AttributeValue>;
  events?: { name: string; timeMs?: number; attributes?: Record<string, AttributeValue> }[];
  status?: OtelSpan["status"];
  resource?: Record<string, AttributeValue>;
}

/** An OtelSpan as otlp-spans.ts reads one. */
export function span(input: SpanInput): OtelSpan {
  const startMs = input.startMs ?? T0;
  return {
    traceId: input.traceId ?? TRACE_ID,
    spanId: input.spanId,
    parentSpanId: input.parentSpanId,
    name: input.name,
    startMs,
    endMs: input.endMs ?? startMs + 1000,
    attributes: attributes(input.attributes),
    events: (input.events ?? []).map(
      (event): SpanEvent => ({
        name: event.name,
        timeMs: event.timeMs ?? startMs + 10,
        attributes: attributes(event.attributes),
      }),
    ),
    status: input.status ?? { code: 0 },
    resource: attributes(input.resource),
  };
}

/** Span ids: `id(1)` = "0000000000000001". */
export function id(n: number): string {
  return n.toString(16).padStart(16, "0");
}
