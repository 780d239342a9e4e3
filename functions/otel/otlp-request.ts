/**
 * The body of an OTLP/HTTP trace export: `application/x-protobuf` (the binary encoding, decoded by the
 * schema pre-compiled from the official OTLP protos, see otlp-protobuf.ts) or `application/json` (the
 * OTLP JSON mapping). Decompression (`Content-Encoding: gzip`) and the size limit are the service's usual
 * body reader's (functions/http/json-body.ts decodedBody). Anything that does not decode is a 400.
 */
import { UnsupportedMediaTypeError, ValidationError } from "../domain/errors.js";
import { decodeExportTraceRequest } from "./otlp-protobuf.js";

export type OtlpEncoding = "protobuf" | "json";

const PROTOBUF_MEDIA_TYPE = /^application\/(x-)?protobuf\s*(;|$)/i;
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/** The encoding a `Content-Type` names, or 415. */
export function otlpEncoding(contentType: string | undefined): OtlpEncoding {
  if (contentType !== undefined && PROTOBUF_MEDIA_TYPE.test(contentType)) return "protobuf";
  if (contentType !== undefined && JSON_MEDIA_TYPE.test(contentType)) return "json";
  throw new UnsupportedMediaTypeError(
    "Send OTLP traces as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)",
  );
}

/** The decoded ExportTraceServiceRequest, still unchecked (functions/otel/otlp-spans.ts reads it). */
export function decodeExportRequest(body: Buffer, encoding: OtlpEncoding): unknown {
  if (encoding === "protobuf") {
    try {
      return decodeExportTraceRequest(body);
    } catch {
      throw new ValidationError("Request body is not a protobuf-encoded OTLP ExportTraceServiceRequest");
    }
  }
  if (body.length === 0) throw new ValidationError("Request body is empty: send an OTLP ExportTraceServiceRequest");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new ValidationError("Request body is not valid JSON");
  }
}
