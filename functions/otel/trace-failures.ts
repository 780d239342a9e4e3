/**
 * The traces of one OTLP export that failed for a reason of the service's own (not a refusal of what the spans
 * say): one trace's failure never stops the others. A failed trace's later steps are skipped; every other trace
 * of the export is stored whole. Then:
 * - a failure a retry may cure (DynamoDB unavailable or throttled, a write that kept conflicting, a request past
 *   its time) fails the export, answered 503 so that the exporter retries it (retryable.ts): the retry finds the
 *   other traces stored and stores nothing twice;
 * - a failure no retry can cure (DynamoDB refusing the request itself, e.g. a transaction of more than 100 items)
 *   refuses the trace's spans in `partialSuccess` (logged in full for the operators), instead of a 503 that would
 *   be retried for ever.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { AtsError } from "../domain/errors.js";
import { logError } from "../runtime/log.js";

/** What a span of a trace that failed incurably is refused with. */
export const INCURABLE_TRACE_MESSAGE =
  "The service could not store this trace (its failure is logged for the service's operators); a retry would fail the same way";

/**
 * Whether no retry of the same request can cure `error`: DynamoDB refused the request as invalid (a
 * ValidationException, or a transaction cancelled for a ValidationError of an item). Anything else — its
 * throttling, conflicts, outages, network failures, the service's own errors — may pass.
 */
export function isIncurable(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof AtsError) return false;
  if (error.name === "ValidationException") return true;
  return (
    error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === "ValidationError")
  );
}

/** A trace of the export, as the failures need it. */
interface FailedTrace {
  readonly traceId: string;
  readonly spanIds: readonly string[];
}

/** The export's failed traces, by trace id (each with its first failure). */
export class TraceFailures {
  private readonly failures = new Map<string, unknown>();

  /** Records that the trace failed with `error` (a failure of the service, never an AtsError refusal). */
  fail(traceId: string, error: unknown): void {
    if (!this.failures.has(traceId)) this.failures.set(traceId, error);
  }

  has(traceId: string): boolean {
    return this.failures.has(traceId);
  }

  /**
   * Once every other trace is stored: refuses the spans of the traces that failed incurably (`refuse`), and
   * throws the first failure a retry may cure, if any (the route answers it 503).
   */
  settle(traces: readonly FailedTrace[], refuse: (traceId: string, spanId: string, message: string) => void): void {
    let curable: { error: unknown } | undefined;
    for (const trace of traces) {
      if (!this.failures.has(trace.traceId)) continue;
      const error = this.failures.get(trace.traceId);
      if (!isIncurable(error)) {
        curable ??= { error };
        continue;
      }
      logError("OTLP trace not stored; its spans are refused", error, { traceId: trace.traceId });
      for (const spanId of trace.spanIds) refuse(trace.traceId, spanId, INCURABLE_TRACE_MESSAGE);
    }
    if (curable !== undefined) throw curable.error;
  }
}
