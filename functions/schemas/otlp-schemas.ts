/**
 * Zod schemas of the OTLP/HTTP trace export (`POST /api/otel/v1/traces`) in its JSON encoding, for the
 * OpenAPI document and the tests that check examples and real responses against it. The handler never
 * imports them: it decodes protobuf or JSON itself (functions/otel/otlp-spans.ts), ignores unknown fields as
 * the OTLP spec asks of receivers, and refuses unreadable spans one by one (`partialSuccess`). So these
 * objects are loose and say what a well-formed request looks like, not every check the reader makes.
 *
 * The OTLP JSON mapping: https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding — ids are hex
 * (not base64), 64-bit integers are decimal text, enums are integers, field names are lowerCamelCase.
 */
import * as z from "zod";

const OTLP_SPEC = "https://opentelemetry.io/docs/specs/otlp/";
const TRACE_PROTO =
  "https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/trace/v1/trace.proto";

const uint64Text = z
  .union([z.string().regex(/^\d{1,20}$/), z.int().nonnegative()])
  .describe("A 64-bit unsigned integer: decimal text (the OTLP JSON mapping), or a JSON number");
const unixNanos = uint64Text.describe("Unix time in nanoseconds: decimal text (or a JSON number)");
const traceId = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/)
  .describe("16 bytes as 32 hex digits, not all zero (base64 text of 16 bytes is tolerated)");
const spanId = z
  .string()
  .regex(/^[0-9a-fA-F]{16}$/)
  .describe("8 bytes as 16 hex digits, not all zero (base64 text of 8 bytes is tolerated)");

/** An OTLP AnyValue: exactly one of its fields; arrays and key-value lists nest (at most 16 levels read). */
export const otlpAnyValue = z
  .looseObject({
    stringValue: z.optional(z.string()),
    boolValue: z.optional(z.boolean()),
    intValue: z.optional(z.union([z.string().regex(/^-?\d{1,20}$/), z.int()])),
    doubleValue: z.optional(z.union([z.number(), z.enum(["NaN", "Infinity", "-Infinity"])])),
    bytesValue: z.optional(z.string().describe("base64")),
    get arrayValue() {
      return z.optional(z.looseObject({ values: z.optional(z.array(otlpAnyValue)) }));
    },
    get kvlistValue() {
      return z.optional(z.looseObject({ values: z.optional(z.array(otlpKeyValue)) }));
    },
  })
  .describe(
    "An OTLP AnyValue: one of stringValue, boolValue, intValue, doubleValue, bytesValue, arrayValue, kvlistValue",
  );

/** An OTLP KeyValue: an attribute. */
export const otlpKeyValue = z
  .looseObject({ key: z.string(), value: z.optional(otlpAnyValue) })
  .describe("An attribute: a key and its AnyValue");

const attributes = z.optional(z.array(otlpKeyValue));

const spanEvent = z.looseObject({
  timeUnixNano: unixNanos,
  name: z.optional(z.string()),
  attributes,
});

const spanStatus = z
  .looseObject({
    code: z.optional(
      z.union([z.literal([0, 1, 2]), z.enum(["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"])]),
    ),
    message: z.optional(z.string()),
  })
  .describe("0 unset, 1 ok, 2 error (an error ends the session as failed, with `message` as its reason)");

const span = z
  .looseObject({
    traceId,
    spanId,
    parentSpanId: z.optional(z.union([spanId, z.literal("")]).describe("Empty or absent on a root span")),
    name: z.optional(z.string()),
    kind: z.optional(z.union([z.int(), z.string()])),
    startTimeUnixNano: unixNanos,
    endTimeUnixNano: unixNanos.describe("Unix time in nanoseconds, not before startTimeUnixNano"),
    attributes,
    events: z.optional(z.array(spanEvent)),
    status: z.optional(spanStatus),
  })
  .describe(`A span (${TRACE_PROTO}); GenAI semantic-convention attributes (gen_ai.*) make its event`);

/** ExportTraceServiceRequest in the OTLP JSON mapping. */
export const exportTraceServiceRequest = z
  .looseObject({
    resourceSpans: z.optional(
      z.array(
        z.looseObject({
          resource: z.optional(z.looseObject({ attributes })),
          scopeSpans: z.optional(
            z.array(
              z.looseObject({
                scope: z.optional(z.looseObject({ name: z.optional(z.string()), version: z.optional(z.string()) })),
                spans: z.optional(z.array(span)),
              }),
            ),
          ),
        }),
      ),
    ),
  })
  .describe(
    `An OTLP ExportTraceServiceRequest (${OTLP_SPEC}), shown in its JSON encoding; the protobuf encoding ` +
      "(`application/x-protobuf`) carries the same message. Unknown fields are ignored. A span that cannot be " +
      "read (an id of the wrong length, a missing time, …) is refused on its own and counted in the response's " +
      "`partialSuccess`; an envelope that is not an ExportTraceServiceRequest is 400.",
  );

/** ExportTraceServiceResponse in the OTLP JSON mapping: empty when every span was accepted. */
export const exportTraceServiceResponse = z
  .strictObject({
    partialSuccess: z.optional(
      z.strictObject({
        rejectedSpans: z
          .string()
          .regex(/^[1-9]\d*$/)
          .describe("How many spans were refused (int64, decimal text)"),
        errorMessage: z.string().describe("Why: the first few distinct reasons, each with a span id"),
      }),
    ),
  })
  .describe("An OTLP ExportTraceServiceResponse: `{}` when every span was accepted");

const LOGS_PROTO =
  "https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/logs/v1/logs.proto";

const logRecord = z
  .looseObject({
    timeUnixNano: z.optional(unixNanos),
    observedTimeUnixNano: z.optional(unixNanos.describe("Used when timeUnixNano is 0 or absent")),
    severityNumber: z.optional(z.union([z.int(), z.string()])),
    eventName: z.optional(z.string().describe("The event's name (or the `event.name` attribute): gen_ai.*")),
    body: z.optional(otlpAnyValue),
    attributes,
    traceId: traceId.describe("The trace of the model call whose messages the record carries"),
    spanId: spanId.describe("The model call's span"),
  })
  .describe(`A log record (${LOGS_PROTO}); GenAI event records join the llm_decision of their span`);

/** ExportLogsServiceRequest in the OTLP JSON mapping. */
export const exportLogsServiceRequest = z
  .looseObject({
    resourceLogs: z.optional(
      z.array(
        z.looseObject({
          resource: z.optional(z.looseObject({ attributes })),
          scopeLogs: z.optional(
            z.array(
              z.looseObject({
                scope: z.optional(z.looseObject({ name: z.optional(z.string()), version: z.optional(z.string()) })),
                logRecords: z.optional(z.array(logRecord)),
              }),
            ),
          ),
        }),
      ),
    ),
  })
  .describe(
    `An OTLP ExportLogsServiceRequest (${OTLP_SPEC}), shown in its JSON encoding; the protobuf encoding ` +
      "(`application/x-protobuf`) carries the same message. GenAI event log records (gen_ai.system.message, " +
      "gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice, " +
      "gen_ai.client.inference.operation.details) with a trace and span id are kept; any other record is " +
      "refused on its own in the response's `partialSuccess`.",
  );

/** ExportLogsServiceResponse in the OTLP JSON mapping: empty when every log record was accepted. */
export const exportLogsServiceResponse = z
  .strictObject({
    partialSuccess: z.optional(
      z.strictObject({
        rejectedLogRecords: z
          .string()
          .regex(/^[1-9]\d*$/)
          .describe("How many log records were refused (int64, decimal text)"),
        errorMessage: z.string().describe("Why: the first few distinct reasons"),
      }),
    ),
  })
  .describe("An OTLP ExportLogsServiceResponse: `{}` when every log record was accepted");

/**
 * The request bodies of the OTLP routes and the parts they share, by their names in the OpenAPI document
 * (`components.schemas`; the recursive AnyValue and KeyValue as `$ref`s). The responses are named with the
 * other responses (response-schemas.ts).
 */
export const protocolComponents = z
  .registry<{ readonly id: string }>()
  .add(exportTraceServiceRequest, { id: "ExportTraceServiceRequest" })
  .add(exportLogsServiceRequest, { id: "ExportLogsServiceRequest" })
  .add(otlpAnyValue, { id: "OtlpAnyValue" })
  .add(otlpKeyValue, { id: "OtlpKeyValue" });
