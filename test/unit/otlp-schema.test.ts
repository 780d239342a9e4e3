/**
 * The pre-compiled OTLP schema (functions/otel/generated/otlp-trace-schema.ts) is what the official protos
 * in proto/ give (scripts/generate-otlp-schema.ts, `npm run otlp:generate -- --check`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXPORT_TRACE_REQUEST, OTLP_TRACE_SCHEMA } from "../../functions/otel/generated/otlp-trace-schema.js";
import { generateOtlpSchema } from "../../scripts/generate-otlp-schema.js";
import { otlpRoot } from "./otlp-fixtures.js";

const GENERATED = join(import.meta.dirname, "../../functions/otel/generated/otlp-trace-schema.ts");

describe("the generated OTLP schema", () => {
  it("is what generateOtlpSchema() gives from the protos", () => {
    expect(generateOtlpSchema()).toBe(readFileSync(GENERATED, "utf8"));
  });

  it("names every message an ExportTraceServiceRequest can hold, with protobufjs's field numbers and JSON names", () => {
    const root = otlpRoot();
    expect(OTLP_TRACE_SCHEMA).toHaveProperty([EXPORT_TRACE_REQUEST]);
    for (const [typeName, fields] of Object.entries(OTLP_TRACE_SCHEMA)) {
      const type = root.lookupType(typeName);
      expect(
        Object.keys(fields)
          .map(Number)
          .sort((a, b) => a - b),
      ).toEqual(type.fieldsArray.map((field) => field.id).sort((a, b) => a - b));
      for (const field of type.fieldsArray) {
        const entry = fields[field.id];
        expect(entry?.name, `${typeName}.${field.name}`).toBe(field.name);
        expect(entry?.repeated === true).toBe(field.repeated);
        if (entry?.kind.startsWith("message:")) expect(OTLP_TRACE_SCHEMA).toHaveProperty([entry.kind.slice(8)]);
      }
    }
  });

  it("has the fields the span reader needs where the protos put them", () => {
    const span = OTLP_TRACE_SCHEMA["opentelemetry.proto.trace.v1.Span"];
    expect(span?.[1]).toEqual({ name: "traceId", kind: "bytes" });
    expect(span?.[7]).toEqual({ name: "startTimeUnixNano", kind: "fixed64" });
    expect(span?.[9]).toEqual({
      name: "attributes",
      kind: "message:opentelemetry.proto.common.v1.KeyValue",
      repeated: true,
    });
    expect(OTLP_TRACE_SCHEMA["opentelemetry.proto.trace.v1.Status"]?.[3]).toEqual({ name: "code", kind: "enum" });
  });
});
