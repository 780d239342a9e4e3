/**
 * Reads the spans of a decoded OTLP ExportTraceServiceRequest into {@link OtelSpan}s. The same reader serves
 * both encodings, since the protobuf decoder and the OTLP JSON mapping give the same field names:
 * - ids: bytes (protobuf), or hex text as the JSON mapping says; base64 text is tolerated;
 * - 64-bit integers: bigint (protobuf), decimal text or numbers (JSON); {low, high} pairs are tolerated;
 * - enums: integers, or their names;
 * - unknown fields are ignored (as the OTLP spec asks of receivers).
 * A request whose envelope is not an ExportTraceServiceRequest is a 400; a span that cannot be read is
 * refused on its own and counted in `partialSuccess`.
 */
import { ValidationError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type { Attributes, OtelSpan, SpanEvent, SpanStatusCode } from "../domain/otel-span.js";
import { envelopeList, isFields, listOf, RecordProblem, readId, readKeyValues, readNanosAsMs } from "./otlp-values.js";

export { ATTRIBUTE_DEPTH, readAnyValue, readId, readNanosAsMs } from "./otlp-values.js";

const REQUEST = "ExportTraceServiceRequest";

/** The refusal of a request of more than LIMITS.otlpSpans spans (counted as it is decoded, then as it is read). */
export const TOO_MANY_SPANS = `A request may hold at most ${LIMITS.otlpSpans} spans; lower the exporter's batch size (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`;

export interface SpanRefusal {
  readonly traceId?: string | undefined;
  readonly spanId?: string | undefined;
  readonly message: string;
}

export interface SpansRead {
  readonly spans: readonly OtelSpan[];
  readonly refused: readonly SpanRefusal[];
}

const STATUS_NAMES: Readonly<Record<string, SpanStatusCode>> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

function readStatus(value: unknown): OtelSpan["status"] {
  if (!isFields(value)) return { code: 0 };
  const raw = value.code;
  const code =
    raw === undefined || raw === null
      ? 0
      : typeof raw === "string" && Object.hasOwn(STATUS_NAMES, raw)
        ? STATUS_NAMES[raw]
        : raw;
  if (code !== 0 && code !== 1 && code !== 2) throw new RecordProblem("status.code must be 0, 1 or 2");
  const message = typeof value.message === "string" && value.message.length > 0 ? value.message : undefined;
  return { code, message };
}

function readEvent(value: unknown): SpanEvent {
  if (!isFields(value)) throw new RecordProblem("Each span event must be an object");
  return {
    name: typeof value.name === "string" ? value.name : "",
    timeMs: readNanosAsMs(value.timeUnixNano, "events.timeUnixNano"),
    attributes: readKeyValues(value.attributes),
  };
}

/** Longest instrumentation scope name kept (a name, not a payload). */
const SCOPE_NAME_CHARS = 256;

/** The instrumentation scope's name of a `scopeSpans` entry, if it has one. */
function scopeName(scopeSpans: Record<string, unknown>): string | undefined {
  const name = isFields(scopeSpans.scope) ? scopeSpans.scope.name : undefined;
  return typeof name === "string" && name.length > 0 ? name.slice(0, SCOPE_NAME_CHARS) : undefined;
}

function readSpan(value: unknown, resource: Attributes, scope: string | undefined): OtelSpan {
  if (!isFields(value)) throw new RecordProblem("Each span must be an object");
  const traceId = readId(value.traceId, 16, "traceId");
  const spanId = readId(value.spanId, 8, "spanId");
  if (traceId === undefined || spanId === undefined) throw new RecordProblem("A span needs a traceId and a spanId");
  const startMs = readNanosAsMs(value.startTimeUnixNano, "startTimeUnixNano");
  const endMs = readNanosAsMs(value.endTimeUnixNano, "endTimeUnixNano");
  if (endMs < startMs) throw new RecordProblem("endTimeUnixNano must not be before startTimeUnixNano");
  return {
    traceId,
    spanId,
    parentSpanId: readId(value.parentSpanId, 8, "parentSpanId"),
    name: typeof value.name === "string" ? value.name : "",
    startMs,
    endMs,
    attributes: readKeyValues(value.attributes),
    events: listOf(value.events, "events").map(readEvent),
    status: readStatus(value.status),
    resource,
    ...(scope === undefined ? {} : { scope }),
  };
}

function identify(value: unknown): Pick<SpanRefusal, "traceId" | "spanId"> {
  if (!isFields(value)) return {};
  const quietly = (read: () => string | undefined) => {
    try {
      return read();
    } catch {
      return undefined;
    }
  };
  return {
    traceId: quietly(() => readId(value.traceId, 16, "traceId")),
    spanId: quietly(() => readId(value.spanId, 8, "spanId")),
  };
}

/** The spans of a decoded request; a span that cannot be read is refused with the reason. */
export function readExportRequest(request: unknown): SpansRead {
  if (!isFields(request)) throw new ValidationError(`Not an OTLP ${REQUEST}: send an object`);
  const spans: OtelSpan[] = [];
  const refused: SpanRefusal[] = [];
  let count = 0;
  for (const resourceSpans of envelopeList(request.resourceSpans, "resourceSpans", REQUEST)) {
    if (!isFields(resourceSpans)) throw new ValidationError("Each resourceSpans entry must be an object");
    let resource: Attributes = new Map();
    let resourceProblem: string | undefined;
    try {
      resource = readKeyValues(isFields(resourceSpans.resource) ? resourceSpans.resource.attributes : undefined);
    } catch (error) {
      resourceProblem = `resource: ${(error as Error).message}`;
    }
    for (const scopeSpans of envelopeList(resourceSpans.scopeSpans, "scopeSpans", REQUEST)) {
      if (!isFields(scopeSpans)) throw new ValidationError("Each scopeSpans entry must be an object");
      const scope = scopeName(scopeSpans);
      for (const span of envelopeList(scopeSpans.spans, "spans", REQUEST)) {
        count++;
        if (count > LIMITS.otlpSpans) {
          throw new ValidationError(TOO_MANY_SPANS);
        }
        try {
          if (resourceProblem !== undefined) throw new RecordProblem(resourceProblem);
          spans.push(readSpan(span, resource, scope));
        } catch (error) {
          if (!(error instanceof RecordProblem)) throw error;
          refused.push({ ...identify(span), message: error.message });
        }
      }
    }
  }
  return { spans, refused };
}
