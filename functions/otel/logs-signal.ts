/** OTLP logs: the ExportLogsServiceRequest, decoded by the schema generated from the official protos. */
import { LIMITS } from "../domain/limits.js";
import { EXPORT_LOGS_REQUEST, OTLP_LOGS_SCHEMA } from "./generated/otlp-logs-schema.js";
import { TOO_MANY_LOG_RECORDS } from "./otlp-logs.js";
import type { OtlpSignal } from "./otlp-request.js";
import { exportLimits } from "./otlp-values.js";

export const LOGS_SIGNAL: OtlpSignal = {
  schemas: OTLP_LOGS_SCHEMA,
  requestType: EXPORT_LOGS_REQUEST,
  requestName: "ExportLogsServiceRequest",
  noun: "logs",
  limits: exportLimits({ LogRecord: { most: LIMITS.otlpLogRecords, refusal: TOO_MANY_LOG_RECORDS } }),
};
