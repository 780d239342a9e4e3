/**
 * Pre-compiles the official OTLP protos (proto/, from open-telemetry/opentelemetry-proto) into
 * functions/otel/generated/: for every message an ExportTraceServiceRequest (otlp-trace-schema.ts) or an
 * ExportLogsServiceRequest (otlp-logs-schema.ts) can hold, its fields by number — name (the OTLP JSON
 * mapping's lowerCamelCase) and type: a scalar type (lower case), `enum`, or a message's name (without its
 * package; capitalised). Fields the service never reads (`unread`: links, trace state, dropped counts,
 * severity…) are left out, and with them the messages only they hold: the wire reader skips them as it skips
 * any unknown field, and the table stays small in the function's bundle. protobufjs parses and
 * resolves the protos here, at build time; at run time the table drives the wire reader
 * (functions/otel/otlp-protobuf.ts), so no proto parser and no generated code per message is in a
 * function's bundle.
 *
 *   npm run otlp:generate            writes the files
 *   npm run otlp:generate -- --check fails when a file is not what the protos give
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";

const ROOT = join(import.meta.dirname, "..");
const PROTO_DIR = join(ROOT, "proto");

/** A generated schema: the service proto, its request message, and the constants the file exports. */
export interface OtlpSchemaFile {
  readonly output: string;
  readonly serviceProto: string;
  readonly request: string;
  readonly requestConstant: string;
  readonly schemaConstant: string;
  /** Fields the readers never read, as `<message>.<field>` (message names as in the schema). */
  readonly unread: readonly string[];
}

/** Unread fields of both requests' resources and envelopes. */
const UNREAD_COMMON = [
  "Resource.droppedAttributesCount",
  "Resource.entityRefs",
  "KeyValue.keyStrindex",
  "AnyValue.stringValueStrindex",
];

export const SCHEMA_FILES: readonly OtlpSchemaFile[] = [
  {
    output: join(ROOT, "functions/otel/generated/otlp-trace-schema.ts"),
    serviceProto: "opentelemetry/proto/collector/trace/v1/trace_service.proto",
    request: "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
    requestConstant: "EXPORT_TRACE_REQUEST",
    schemaConstant: "OTLP_TRACE_SCHEMA",
    unread: [
      ...UNREAD_COMMON,
      "ResourceSpans.schemaUrl",
      // The scope's name is read (it tells two instrumentations' spans of one model call apart), nothing else of it.
      "InstrumentationScope.version",
      "InstrumentationScope.droppedAttributesCount",
      "ScopeSpans.schemaUrl",
      "Span.traceState",
      "Span.kind",
      "Span.droppedAttributesCount",
      "Span.droppedEventsCount",
      "Span.links",
      "Span.droppedLinksCount",
      "Span.flags",
      "Span.Event.droppedAttributesCount",
    ],
  },
  {
    output: join(ROOT, "functions/otel/generated/otlp-logs-schema.ts"),
    serviceProto: "opentelemetry/proto/collector/logs/v1/logs_service.proto",
    request: "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest",
    requestConstant: "EXPORT_LOGS_REQUEST",
    schemaConstant: "OTLP_LOGS_SCHEMA",
    unread: [
      ...UNREAD_COMMON,
      "ResourceLogs.schemaUrl",
      "ScopeLogs.scope",
      "ScopeLogs.schemaUrl",
      "LogRecord.severityNumber",
      "LogRecord.severityText",
      "LogRecord.droppedAttributesCount",
      "LogRecord.flags",
    ],
  },
];

export function generateOtlpSchema(file: OtlpSchemaFile = SCHEMA_FILES[0] as OtlpSchemaFile): string {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync(file.serviceProto);
  root.resolveAll();
  const messages = new Map<string, string[]>();
  const pending = [root.lookupType(file.request)];
  // Names without the package (`Span.Event`, `AnyValue`): unique within a request's messages, and short.
  const shortName = (type: protobuf.Type) => type.fullName.replace(/^\.opentelemetry\.proto\.(?:[a-z]+\.)+v1\./, "");
  while (pending.length > 0) {
    const type = pending.pop() as protobuf.Type;
    const name = shortName(type);
    if (messages.has(name)) continue;
    const unread = new Set(file.unread);
    const fields = type.fieldsArray
      .filter((field) => !unread.has(`${name}.${field.name}`))
      .sort((a, b) => a.id - b.id)
      .map((field) => {
        const resolved = field.resolvedType;
        let kind: string;
        if (resolved instanceof protobuf.Type) {
          kind = shortName(resolved);
          pending.push(resolved);
        } else if (resolved instanceof protobuf.Enum) kind = "enum";
        else kind = field.type;
        return `    ${field.id}: [${JSON.stringify(field.name)}, ${JSON.stringify(kind)}${field.repeated ? ", true" : ""}],`;
      });
    messages.set(name, fields);
  }
  const body = [...messages]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, fields]) => `  ${/^\w+$/.test(name) ? name : JSON.stringify(name)}: {\n${fields.join("\n")}\n  },`)
    .join("\n");
  return `/**
 * Generated by \`npm run otlp:generate\` (scripts/generate-otlp-schema.ts) from the official OTLP protos in
 * proto/ — do not edit. Every message an ${file.request.split(".").at(-1)} can hold (by its name without the
 * \`opentelemetry.proto.<signal>.v1.\` package): its fields by number, as [JSON name, kind, repeated?] — those
 * the service reads (the wire reader skips the others as unknown fields).
 */
import type { MessageSchemas } from "../otlp-schema-types.js";

export const ${file.requestConstant} = ${JSON.stringify(file.request.split(".").at(-1))};

export const ${file.schemaConstant}: MessageSchemas = {
${body}
};
`;
}

if (process.argv[1] === import.meta.filename) {
  for (const file of SCHEMA_FILES) {
    const generated = generateOtlpSchema(file);
    if (process.argv.includes("--check")) {
      if (readFileSync(file.output, "utf8") !== generated) {
        console.error(`${file.output} is not what the protos give: run npm run otlp:generate`);
        process.exit(1);
      }
    } else writeFileSync(file.output, generated);
  }
}
