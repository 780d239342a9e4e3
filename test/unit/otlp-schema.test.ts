/**
 * The pre-compiled OTLP schemas (functions/otel/generated/: traces and logs) are what the official protos in
 * proto/ give (scripts/generate-otlp-schema.ts, `npm run otlp:generate -- --check`) but for the fields the
 * service never reads, and the decoder (functions/otel/otlp-protobuf.ts) reads every scalar type they use.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { EXPORT_LOGS_REQUEST, OTLP_LOGS_SCHEMA } from "../../functions/otel/generated/otlp-logs-schema.js";
import { EXPORT_TRACE_REQUEST, OTLP_TRACE_SCHEMA } from "../../functions/otel/generated/otlp-trace-schema.js";
import { WIRE_TYPE_OF } from "../../functions/otel/otlp-protobuf.js";
import type { MessageSchemas } from "../../functions/otel/otlp-schema-types.js";
import { generateOtlpSchema, SCHEMA_FILES } from "../../scripts/generate-otlp-schema.js";
import { PROTO_DIR } from "./otlp-fixtures.js";

/** The name a schema gives a message: its full name without the `opentelemetry.proto.<…>.v1.` package. */
const shortName = (type: protobuf.Type) => type.fullName.replace(/^\.opentelemetry\.proto\.(?:[a-z]+\.)+v1\./, "");

const SIGNALS = [
  {
    signal: "traces",
    schema: OTLP_TRACE_SCHEMA,
    request: EXPORT_TRACE_REQUEST,
    proto: "opentelemetry/proto/collector/trace/v1/trace_service.proto",
    fullRequest: "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
  },
  {
    signal: "logs",
    schema: OTLP_LOGS_SCHEMA,
    request: EXPORT_LOGS_REQUEST,
    proto: "opentelemetry/proto/collector/logs/v1/logs_service.proto",
    fullRequest: "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest",
  },
] as const;

/** Every message the request can hold through the fields read (not `unread`), by the schema's name, with protobufjs. */
function reachable(protoFile: string, request: string, unread: ReadonlySet<string>): Map<string, protobuf.Type> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync(protoFile);
  root.resolveAll();
  const found = new Map<string, protobuf.Type>();
  const pending = [root.lookupType(request)];
  while (pending.length > 0) {
    const type = pending.pop() as protobuf.Type;
    if (found.has(shortName(type))) continue;
    found.set(shortName(type), type);
    for (const field of type.fieldsArray)
      if (field.resolvedType instanceof protobuf.Type && !unread.has(`${shortName(type)}.${field.name}`))
        pending.push(field.resolvedType);
  }
  return found;
}

describe.each(SIGNALS)("the generated OTLP $signal schema", ({ schema, request, proto, fullRequest }) => {
  const file = SCHEMA_FILES.find((candidate) => candidate.request === fullRequest);

  it("is what generateOtlpSchema() gives from the protos", () => {
    expect(file).toBeDefined();
    const generated = generateOtlpSchema(file as (typeof SCHEMA_FILES)[number]);
    expect(generated).toBe(readFileSync((file as (typeof SCHEMA_FILES)[number]).output, "utf8"));
  });

  it("leaves out only fields of the protos that the readers do not read", () => {
    const all = reachable(proto, fullRequest, new Set());
    const unread = (file as (typeof SCHEMA_FILES)[number]).unread;
    for (const entry of unread) {
      const [, message = "", field = ""] = /^(.+)\.(\w+)$/.exec(entry) ?? [];
      expect(
        all.get(message)?.fieldsArray.some((candidate) => candidate.name === field),
        entry,
      ).toBe(true);
    }
    // What the readers read of a span, a log record and their envelopes is kept.
    const read = ["traceId", "spanId", "parentSpanId", "attributes", "events", "status", "body", "eventName"];
    expect(unread.filter((entry) => read.some((field) => entry.endsWith(`.${field}`)))).toEqual([]);
  });

  it("names every message the request can hold, with protobufjs's field numbers, JSON names and types", () => {
    const unread = new Set((file as (typeof SCHEMA_FILES)[number]).unread);
    const messages = reachable(proto, fullRequest, unread);
    expect(request).toBe(fullRequest.split(".").at(-1));
    expect(Object.keys(schema).sort()).toEqual([...messages.keys()].sort());
    for (const [name, type] of messages) {
      const fields = (schema as MessageSchemas)[name] ?? {};
      expect(
        Object.keys(fields)
          .map(Number)
          .sort((a, b) => a - b),
      ).toEqual(
        type.fieldsArray
          .filter((field) => !unread.has(`${name}.${field.name}`))
          .map((field) => field.id)
          .sort((a, b) => a - b),
      );
      for (const field of type.fieldsArray.filter((candidate) => !unread.has(`${name}.${candidate.name}`))) {
        const [jsonName, kind, repeated] = fields[field.id] ?? [];
        expect(jsonName, `${name}.${field.name}`).toBe(field.name);
        expect(repeated === true).toBe(field.repeated);
        const resolved = field.resolvedType;
        const expected =
          resolved instanceof protobuf.Type
            ? shortName(resolved)
            : resolved instanceof protobuf.Enum
              ? "enum"
              : field.type;
        expect(kind, `${name}.${field.name}`).toBe(expected);
      }
    }
  });

  it("uses only scalar types the decoder reads (any other kind is a message it names)", () => {
    for (const fields of Object.values(schema as MessageSchemas)) {
      for (const [, kind] of Object.values(fields)) {
        expect(Object.hasOwn(WIRE_TYPE_OF, kind) || Object.hasOwn(schema, kind), kind).toBe(true);
        expect(Object.hasOwn(WIRE_TYPE_OF, kind) && Object.hasOwn(schema, kind), kind).toBe(false);
      }
    }
  });
});

describe("the fields the readers need", () => {
  it("are where the protos put them", () => {
    const span = OTLP_TRACE_SCHEMA.Span;
    expect(span?.[1]).toEqual(["traceId", "bytes"]);
    expect(span?.[7]).toEqual(["startTimeUnixNano", "fixed64"]);
    expect(span?.[9]).toEqual(["attributes", "KeyValue", true]);
    expect(OTLP_TRACE_SCHEMA.Status?.[3]).toEqual(["code", "enum"]);
    const record = OTLP_LOGS_SCHEMA.LogRecord;
    expect(record?.[1]).toEqual(["timeUnixNano", "fixed64"]);
    expect(record?.[5]).toEqual(["body", "AnyValue"]);
    expect(record?.[9]).toEqual(["traceId", "bytes"]);
    expect(record?.[10]).toEqual(["spanId", "bytes"]);
    expect(record?.[12]).toEqual(["eventName", "string"]);
  });
});
