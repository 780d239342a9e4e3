/**
 * The answer to an OTLP/HTTP export, in the encoding of the request (the OTLP spec: the response's
 * Content-Type is the request's): an ExportTraceServiceResponse, whose `partialSuccess` says how many
 * spans were refused and why. A fully accepted request gets an empty response.
 *
 * Protobuf field numbers, from opentelemetry/proto/collector/trace/v1/trace_service.proto:
 * ExportTraceServiceResponse.partial_success = 1; ExportTracePartialSuccess.rejected_spans = 1 (int64),
 * .error_message = 2 (string).
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { HttpResult } from "../http/sdk-event.js";
import type { OtlpEncoding } from "./otlp-request.js";

export interface PartialSuccess {
  readonly rejectedSpans: number;
  readonly errorMessage: string;
}

/** ExportTraceServiceResponse in the binary encoding. */
export function encodeExportResponse(partial: PartialSuccess | undefined): Uint8Array {
  const writer = new BinaryWriter();
  if (partial === undefined) return writer.finish();
  writer.tag(1, WireType.LengthDelimited).fork();
  writer.tag(1, WireType.Varint).int64(partial.rejectedSpans);
  if (partial.errorMessage.length > 0) writer.tag(2, WireType.LengthDelimited).string(partial.errorMessage);
  return writer.join().finish();
}

export function exportResponse(encoding: OtlpEncoding, partial: PartialSuccess | undefined): HttpResult {
  if (encoding === "protobuf") {
    return {
      statusCode: 200,
      headers: { "content-type": "application/x-protobuf" },
      body: Buffer.from(encodeExportResponse(partial)).toString("base64"),
      isBase64Encoded: true,
    };
  }
  // int64 is text in the OTLP JSON mapping.
  const body =
    partial === undefined
      ? {}
      : { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } };
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** Longest `errorMessage`; it names the first few distinct reasons. */
const ERROR_MESSAGE_CHARS = 1000;
const REASONS_NAMED = 5;

/** The `partialSuccess` of refused spans, or undefined when none was. */
export function partialSuccessOf(
  refused: readonly { readonly spanId?: string | undefined; readonly message: string }[],
): PartialSuccess | undefined {
  if (refused.length === 0) return undefined;
  const reasons = new Map<string, string | undefined>();
  for (const refusal of refused) {
    if (reasons.size >= REASONS_NAMED) break;
    if (!reasons.has(refusal.message)) reasons.set(refusal.message, refusal.spanId);
  }
  const named = [...reasons].map(([message, spanId]) =>
    spanId === undefined ? message : `span ${spanId}: ${message}`,
  );
  const text = `${refused.length} span${refused.length === 1 ? "" : "s"} refused: ${named.join("; ")}`;
  return {
    rejectedSpans: refused.length,
    errorMessage:
      text.length <= ERROR_MESSAGE_CHARS ? text : `${text.slice(0, ERROR_MESSAGE_CHARS - 1).toWellFormed()}…`,
  };
}
