/**
 * Reads the log records of a decoded OTLP ExportLogsServiceRequest (either encoding: otlp-values.ts). The
 * service keeps GenAI event log records only (domain/genai-log-events.ts: the messages of a model call,
 * tied to its span by trace and span id); any other record — another event, a plain log line, one without a
 * span — is refused on its own, in `partialSuccess`, as is one that cannot be read. An envelope that is not an
 * ExportLogsServiceRequest is a 400.
 */
import { ValidationError } from "../domain/errors.js";
import { isGenAiLogEvent, type LogMessages, logMessages } from "../domain/genai-log-events.js";
import { LIMITS } from "../domain/limits.js";
import { stringAttribute } from "../domain/otel-span.js";
import {
  envelopeList,
  isFields,
  RecordProblem,
  readAnyValue,
  readId,
  readKeyValues,
  readNanosAsMs,
} from "./otlp-values.js";

const REQUEST = "ExportLogsServiceRequest";

/** The refusal of a request of more than LIMITS.otlpLogRecords records (counted as it is decoded, then as it is read). */
export const TOO_MANY_LOG_RECORDS = `A request may hold at most ${LIMITS.otlpLogRecords} log records; lower the exporter's batch size (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE)`;

/** Largest body (with its messages) a log record may carry, in bytes of JSON: it is stored as one item. */
export const LOG_RECORD_BYTES = 256 * 1024;

/** A GenAI event log record, as the service keeps it. */
export interface GenAiLogRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly eventName: string;
  /** Unix nanoseconds as decimal text (its order among the span's records). */
  readonly timeNanos: string;
  /** Its position in the request (its order among records of the same time). */
  readonly position: number;
  readonly messages: LogMessages;
}

export interface LogRefusal {
  readonly message: string;
}

export interface LogsRead {
  readonly records: readonly GenAiLogRecord[];
  readonly refused: readonly LogRefusal[];
}

function nanosText(value: unknown): string | undefined {
  try {
    const ms = readNanosAsMs(value, "timeUnixNano");
    // Exact nanoseconds when the value is exact text or a bigint; milliseconds otherwise.
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "string" && /^\d{1,20}$/.test(value)) return BigInt(value).toString();
    return (BigInt(ms) * 1_000_000n).toString();
  } catch {
    return undefined;
  }
}

function readRecord(value: unknown, position: number): GenAiLogRecord {
  if (!isFields(value)) throw new RecordProblem("Each log record must be an object");
  const attributes = readKeyValues(value.attributes);
  const eventName =
    (typeof value.eventName === "string" && value.eventName.length > 0 ? value.eventName : undefined) ??
    stringAttribute(attributes, "event.name");
  if (eventName === undefined || !isGenAiLogEvent(eventName)) {
    throw new RecordProblem("Only GenAI event log records (gen_ai.*.message, gen_ai.choice, …) are recorded");
  }
  const traceId = readId(value.traceId, 16, "traceId");
  const spanId = readId(value.spanId, 8, "spanId");
  if (traceId === undefined || spanId === undefined) {
    throw new RecordProblem("A GenAI event log record needs the traceId and spanId of its model call");
  }
  const timeNanos = nanosText(value.timeUnixNano) ?? nanosText(value.observedTimeUnixNano);
  if (timeNanos === undefined) throw new RecordProblem("timeUnixNano must be a time in Unix nanoseconds");
  const messages = logMessages(eventName, readAnyValue(value.body), attributes) ?? {};
  if (Buffer.byteLength(JSON.stringify(messages), "utf8") > LOG_RECORD_BYTES) {
    throw new RecordProblem(`A log record's messages may hold at most ${LOG_RECORD_BYTES / 1024} KiB`);
  }
  return { traceId, spanId, eventName, timeNanos, position, messages };
}

/** The GenAI event log records of a decoded request; any other record is refused with the reason. */
export function readExportLogsRequest(request: unknown): LogsRead {
  if (!isFields(request)) throw new ValidationError(`Not an OTLP ${REQUEST}: send an object`);
  const records: GenAiLogRecord[] = [];
  const refused: LogRefusal[] = [];
  let count = 0;
  for (const resourceLogs of envelopeList(request.resourceLogs, "resourceLogs", REQUEST)) {
    if (!isFields(resourceLogs)) throw new ValidationError("Each resourceLogs entry must be an object");
    for (const scopeLogs of envelopeList(resourceLogs.scopeLogs, "scopeLogs", REQUEST)) {
      if (!isFields(scopeLogs)) throw new ValidationError("Each scopeLogs entry must be an object");
      for (const record of envelopeList(scopeLogs.logRecords, "logRecords", REQUEST)) {
        count++;
        if (count > LIMITS.otlpLogRecords) {
          throw new ValidationError(TOO_MANY_LOG_RECORDS);
        }
        try {
          records.push(readRecord(record, count - 1));
        } catch (error) {
          if (!(error instanceof RecordProblem)) throw error;
          refused.push({ message: error.message });
        }
      }
    }
  }
  return { records, refused };
}
