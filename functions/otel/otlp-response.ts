/**
 * The answer to an OTLP/HTTP export, in the encoding of the request (the OTLP spec: the response's
 * Content-Type is the request's): an Export…ServiceResponse, whose `partialSuccess` says how many spans
 * (or log records) were refused and why. A fully accepted request gets an empty response.
 *
 * Protobuf field numbers, from opentelemetry/proto/collector/{trace,logs}/v1/*_service.proto: the
 * response's partial_success = 1; its rejected_spans / rejected_log_records = 1 (int64), error_message = 2.
 */
import type { HttpResult } from "../http/sdk-event.js";
import { encodePartialSuccess } from "./otlp-protobuf.js";
import type { OtlpEncoding } from "./otlp-request.js";

/** What was refused, and the JSON name of its count (`rejectedSpans`, `rejectedLogRecords`). */
export interface PartialSuccess {
  readonly rejected: number;
  readonly errorMessage: string;
  readonly countField: "rejectedSpans" | "rejectedLogRecords";
}

/** The response in the binary encoding. */
export function encodeExportResponse(partial: PartialSuccess | undefined): Uint8Array {
  return encodePartialSuccess(partial);
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
      : { partialSuccess: { [partial.countField]: String(partial.rejected), errorMessage: partial.errorMessage } };
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** Longest `errorMessage`; it names the first few distinct reasons. */
const ERROR_MESSAGE_CHARS = 1000;
const REASONS_NAMED = 5;

/** The `partialSuccess` of refused spans (or log records), or undefined when none was. */
export function partialSuccessOf(
  refused: readonly { readonly spanId?: string | undefined; readonly message: string }[],
  noun: "span" | "log record" = "span",
): PartialSuccess | undefined {
  if (refused.length === 0) return undefined;
  const reasons = new Map<string, string | undefined>();
  for (const refusal of refused) {
    if (reasons.size >= REASONS_NAMED) break;
    if (!reasons.has(refusal.message)) reasons.set(refusal.message, refusal.spanId);
  }
  const named = [...reasons].map(([message, spanId]) =>
    spanId === undefined || noun !== "span" ? message : `span ${spanId}: ${message}`,
  );
  const text = `${refused.length} ${noun}${refused.length === 1 ? "" : "s"} refused: ${named.join("; ")}`;
  return {
    rejected: refused.length,
    countField: noun === "span" ? "rejectedSpans" : "rejectedLogRecords",
    errorMessage:
      text.length <= ERROR_MESSAGE_CHARS ? text : `${text.slice(0, ERROR_MESSAGE_CHARS - 1).toWellFormed()}…`,
  };
}
