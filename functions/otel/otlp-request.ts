/**
 * The body of an OTLP/HTTP export: `application/x-protobuf` (the binary encoding, decoded by a schema
 * pre-compiled from the official OTLP protos, see otlp-protobuf.ts) or `application/json` (the OTLP JSON
 * mapping). Decompression (`Content-Encoding: gzip`) and the size limit are the service's usual body
 * reader's (functions/http/json-body.ts decodedBody). Anything that does not decode is a 400, and so is a
 * request over one of its signal's limits (spans or log records, attributes, values: decode-limits.ts),
 * refused as soon as the count passes — while a protobuf body is decoded, before a JSON one is read.
 */
import { UnsupportedMediaTypeError, ValidationError } from "../domain/errors.js";
import { DecodeLimitError, type DecodeLimits } from "./decode-limits.js";
import { countJsonRequest } from "./otlp-json-count.js";
import { decodeMessage } from "./otlp-protobuf.js";
import type { MessageSchemas } from "./otlp-schema-types.js";

export type OtlpEncoding = "protobuf" | "json";

/** What an export request holds: its message in the protos, and its name in messages to the client. */
export interface OtlpSignal {
  readonly schemas: MessageSchemas;
  readonly requestType: string;
  /** e.g. `ExportTraceServiceRequest`. */
  readonly requestName: string;
  /** e.g. `traces`, for the 415's advice. */
  readonly noun: string;
  /** What one request may hold, counted as it is decoded. */
  readonly limits: DecodeLimits;
}

const PROTOBUF_MEDIA_TYPE = /^application\/(x-)?protobuf\s*(;|$)/i;
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/** The encoding a `Content-Type` names, or 415. */
export function otlpEncoding(contentType: string | undefined, noun = "traces"): OtlpEncoding {
  if (contentType !== undefined && PROTOBUF_MEDIA_TYPE.test(contentType)) return "protobuf";
  if (contentType !== undefined && JSON_MEDIA_TYPE.test(contentType)) return "json";
  throw new UnsupportedMediaTypeError(
    `Send OTLP ${noun} as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)`,
  );
}

/** The decoded export request, still unchecked (otlp-spans.ts, otlp-logs.ts read it). */
export function decodeOtlpRequest(body: Buffer, encoding: OtlpEncoding, signal: OtlpSignal): unknown {
  if (encoding === "protobuf") {
    try {
      return decodeMessage(body, signal.schemas, signal.requestType, signal.limits);
    } catch (error) {
      if (error instanceof DecodeLimitError) throw new ValidationError(error.message);
      throw new ValidationError(`Request body is not a protobuf-encoded OTLP ${signal.requestName}`);
    }
  }
  if (body.length === 0) throw new ValidationError(`Request body is empty: send an OTLP ${signal.requestName}`);
  let request: unknown;
  try {
    request = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ValidationError("Request body is not valid JSON");
  }
  try {
    countJsonRequest(request, signal.schemas, signal.requestType, signal.limits);
  } catch (error) {
    if (error instanceof DecodeLimitError) throw new ValidationError(error.message);
    throw error;
  }
  return request;
}
