/** OTLP traces: the ExportTraceServiceRequest, decoded by the schema generated from the official protos. */
import { LIMITS } from "../domain/limits.js";
import { EXPORT_TRACE_REQUEST, OTLP_TRACE_SCHEMA } from "./generated/otlp-trace-schema.js";
import { decodeMessage } from "./otlp-protobuf.js";
import type { OtlpSignal } from "./otlp-request.js";
import { TOO_MANY_SPANS } from "./otlp-spans.js";
import { exportLimits } from "./otlp-values.js";

export const TRACE_SIGNAL: OtlpSignal = {
  schemas: OTLP_TRACE_SCHEMA,
  requestType: EXPORT_TRACE_REQUEST,
  requestName: "ExportTraceServiceRequest",
  noun: "traces",
  limits: exportLimits({ Span: { most: LIMITS.otlpSpans, refusal: TOO_MANY_SPANS } }),
};

/** The ExportTraceServiceRequest in `bytes`, with the OTLP JSON mapping's field names, within its limits. */
export function decodeExportTraceRequest(bytes: Uint8Array): Record<string, unknown> {
  return decodeMessage(bytes, OTLP_TRACE_SCHEMA, EXPORT_TRACE_REQUEST, TRACE_SIGNAL.limits);
}
