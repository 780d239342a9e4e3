/** OTLP logs: the ExportLogsServiceRequest, decoded by the schema generated from the official protos. */
import { EXPORT_LOGS_REQUEST, OTLP_LOGS_SCHEMA } from "./generated/otlp-logs-schema.js";
import type { OtlpSignal } from "./otlp-request.js";

export const LOGS_SIGNAL: OtlpSignal = {
  schemas: OTLP_LOGS_SCHEMA,
  requestType: EXPORT_LOGS_REQUEST,
  requestName: "ExportLogsServiceRequest",
  noun: "logs",
};
