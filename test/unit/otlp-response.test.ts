/**
 * The answer to an OTLP/HTTP export (functions/otel/otlp-response.ts): an ExportTraceServiceResponse in
 * the request's encoding, checked against protobufjs and the official protos (field numbers, int64).
 */
import { describe, expect, it } from "vitest";
import { encodeExportResponse, exportResponse, partialSuccessOf } from "../../functions/otel/otlp-response.js";
import { id, responseType } from "./otlp-fixtures.js";

function decodedResponse(bytes: Uint8Array) {
  const type = responseType();
  return type.toObject(type.decode(bytes), { longs: String });
}

describe("encodeExportResponse", () => {
  it("encodes a fully accepted request as an empty message", () => {
    expect(encodeExportResponse(undefined)).toEqual(new Uint8Array(0));
    expect(decodedResponse(encodeExportResponse(undefined))).toEqual({});
  });

  it("encodes partial_success = 1 { rejected_spans = 1 (int64), error_message = 2 } as protobufjs reads them", () => {
    const bytes = encodeExportResponse({
      rejected: 3,
      errorMessage: "3 spans refused: …",
      countField: "rejectedSpans",
    });
    expect(decodedResponse(bytes)).toEqual({
      partialSuccess: { rejectedSpans: "3", errorMessage: "3 spans refused: …" },
    });
    const large = encodeExportResponse({ rejected: 2 ** 40, errorMessage: "", countField: "rejectedSpans" });
    expect(decodedResponse(large)).toEqual({ partialSuccess: { rejectedSpans: String(2 ** 40) } });
  });

  it("encodes a partial success of no rejected spans (a warning) too", () => {
    const type = responseType();
    const bytes = encodeExportResponse({ rejected: 0, errorMessage: "note", countField: "rejectedSpans" });
    expect(type.toObject(type.decode(bytes), { longs: String, defaults: true })).toEqual({
      partialSuccess: { rejectedSpans: "0", errorMessage: "note" },
    });
  });
});

describe("exportResponse", () => {
  it("answers protobuf with base64 bytes and the protobuf content type", () => {
    const result = exportResponse("protobuf", {
      rejected: 1,
      errorMessage: "span 0000000000000001: bad",
      countField: "rejectedSpans",
    });
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual({ "content-type": "application/x-protobuf" });
    expect(result.isBase64Encoded).toBe(true);
    expect(decodedResponse(Buffer.from(result.body as string, "base64"))).toEqual({
      partialSuccess: { rejectedSpans: "1", errorMessage: "span 0000000000000001: bad" },
    });
    const empty = exportResponse("protobuf", undefined);
    expect(empty.body).toBe("");
    expect(empty.isBase64Encoded).toBe(true);
  });

  it("answers JSON with the OTLP JSON mapping (int64 as text), and {} when everything was accepted", () => {
    const result = exportResponse("json", {
      rejected: 2,
      errorMessage: "2 spans refused",
      countField: "rejectedSpans",
    });
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual({ "content-type": "application/json" });
    expect(JSON.parse(result.body as string)).toEqual({
      partialSuccess: { rejectedSpans: "2", errorMessage: "2 spans refused" },
    });
    // protobufjs reads the JSON mapping the same way.
    const type = responseType();
    expect(type.toObject(type.fromObject(JSON.parse(result.body as string)), { longs: String })).toEqual({
      partialSuccess: { rejectedSpans: "2", errorMessage: "2 spans refused" },
    });
    expect(JSON.parse(exportResponse("json", undefined).body as string)).toEqual({});
  });
});

describe("partialSuccessOf", () => {
  it("is undefined when nothing was refused", () => {
    expect(partialSuccessOf([])).toBeUndefined();
  });

  it("counts every refusal and names the first distinct reasons with their span", () => {
    expect(partialSuccessOf([{ spanId: id(1), message: "bad time" }])).toEqual({
      countField: "rejectedSpans",
      rejected: 1,
      errorMessage: "1 span refused: span 0000000000000001: bad time",
    });
    const refused = [
      { spanId: id(1), message: "a" },
      { spanId: id(2), message: "a" },
      { message: "b" },
      { spanId: id(4), message: "c" },
      { spanId: id(5), message: "d" },
      { spanId: id(6), message: "e" },
      { spanId: id(7), message: "f" },
    ];
    expect(partialSuccessOf(refused)).toEqual({
      countField: "rejectedSpans",
      rejected: 7,
      errorMessage: `7 spans refused: span ${id(1)}: a; b; span ${id(4)}: c; span ${id(5)}: d; span ${id(6)}: e`,
    });
  });

  it("keeps the message within 1,000 characters", () => {
    const refused = Array.from({ length: 5 }, (_, index) => ({
      spanId: id(index + 1),
      message: `${index}${"x".repeat(400)}`,
    }));
    const partial = partialSuccessOf(refused);
    expect(partial?.rejected).toBe(5);
    expect(partial?.errorMessage).toHaveLength(1000);
    expect(partial?.errorMessage.endsWith("…")).toBe(true);
  });
});
