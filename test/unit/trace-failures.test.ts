/**
 * One trace's failure in an OTLP export (functions/otel/trace-failures.ts): which failures no retry can cure
 * (their trace's spans refused) and which a retry may (the export answered 503 once the others are stored).
 */
import { DynamoDBServiceException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { ConflictError } from "../../functions/domain/errors.js";
import { INCURABLE_TRACE_MESSAGE, isIncurable, TraceFailures } from "../../functions/otel/trace-failures.js";

const serviceError = (name: string, fault: "client" | "server") =>
  new DynamoDBServiceException({ name, $fault: fault, $metadata: {}, message: name });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    $metadata: {},
    message: "Transaction cancelled",
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe("isIncurable", () => {
  it("DynamoDB refusing the request as invalid: a ValidationException, a transaction cancelled for a ValidationError", () => {
    expect(isIncurable(serviceError("ValidationException", "client"))).toBe(true);
    expect(isIncurable(cancelled("None", "ValidationError"))).toBe(true);
  });

  it("anything a retry may cure: throttling, conflicts, failed conditions, outages, the service's own errors", () => {
    for (const error of [
      serviceError("ProvisionedThroughputExceededException", "client"),
      serviceError("InternalServerError", "server"),
      cancelled("None", "TransactionConflict"),
      cancelled("ConditionalCheckFailed"),
      cancelled("ThrottlingError"),
      new ConflictError("kept changing"),
      new Error("socket hang up"),
      "not an error",
    ]) {
      expect(isIncurable(error), String(error)).toBe(false);
    }
  });
});

describe("TraceFailures.settle", () => {
  const traces = [
    { traceId: "a", spanIds: ["a1", "a2"] },
    { traceId: "b", spanIds: ["b1"] },
    { traceId: "c", spanIds: ["c1"] },
  ];

  it("refuses the spans of the traces that failed incurably, and none of the others", () => {
    const failures = new TraceFailures();
    failures.fail("a", serviceError("ValidationException", "client"));
    const refused: string[] = [];
    failures.settle(traces, (traceId, spanId, message) => refused.push(`${traceId}/${spanId}: ${message}`));
    expect(refused).toEqual([`a/a1: ${INCURABLE_TRACE_MESSAGE}`, `a/a2: ${INCURABLE_TRACE_MESSAGE}`]);
    expect(failures.has("a")).toBe(true);
    expect(failures.has("b")).toBe(false);
  });

  it("throws the first curable failure once the incurable ones are refused (the route answers it 503)", () => {
    const failures = new TraceFailures();
    const outage = serviceError("InternalServerError", "server");
    failures.fail("b", outage);
    failures.fail("b", new Error("a later failure of the same trace"));
    failures.fail("c", serviceError("ValidationException", "client"));
    const refused: string[] = [];
    expect(() => failures.settle(traces, (traceId, spanId) => refused.push(`${traceId}/${spanId}`))).toThrow(outage);
    expect(refused).toEqual(["c/c1"]);
  });
});
