/** OTLP traces: the ExportTraceServiceRequest, decoded by the schema generated from the official protos. */
import { EXPORT_TRACE_REQUEST, OTLP_TRACE_SCHEMA } from "./generated/otlp-trace-schema.js";
import { decodeMessage } from "./otlp-protobuf.js";
import type { OtlpSignal } from "./otlp-request.js";

export const TRACE_SIGNAL: OtlpSignal = {
  schemas: OTLP_TRACE_SCHEMA,
  requestType: EXPORT_TRACE_REQUEST,
  requestName: "ExportTraceServiceRequest",
  noun: "traces",
};

/** The ExportTraceServiceRequest in `bytes`, with the OTLP JSON mapping's field names. */
export function decodeExportTraceRequest(bytes: Uint8Array): Record<string, unknown> {
  return decodeMessage(bytes, OTLP_TRACE_SCHEMA, EXPORT_TRACE_REQUEST);
}
