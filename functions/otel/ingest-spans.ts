/**
 * Records the spans of one OTLP export request: for each trace its session (found by trace id, or
 * started), the events of its spans (one batch write, each event keyed by its span so an exporter's
 * retry stores nothing twice), the usage of its inference spans, and — when its root span is among
 * them — the session's end. No HTTP here: the route (export-traces.ts) decodes and answers.
 *
 * A refusal of the service's own (a span older than retention, a session of another state, …) refuses
 * the spans it concerns, reported in `partialSuccess`; any other failure (DynamoDB unavailable) fails the
 * request, so the exporter retries all of it — and the retry finds what was already stored.
 */
import { AtsError, ConflictError } from "../domain/errors.js";
import { planTraces, sessionTotals, type TracePlan } from "../domain/genai-trace-plan.js";
import type { OtelSpan } from "../domain/otel-span.js";
import type { Principal } from "../domain/principal.js";
import { type BatchEventInput, recordEventBatch } from "../store/event-batch-store.js";
import { getSession, updateSession } from "../store/session-store.js";
import {
  getTraceSession,
  nameTraceSession,
  recordInferenceUsage,
  resolveTraceSession,
  type TraceSession,
} from "../store/trace-session-store.js";
import type { SpanRefusal } from "./otlp-spans.js";

/** Traces of a request whose sessions are resolved at once. */
const TRACE_CONCURRENCY = 8;

export interface IngestOutcome {
  readonly refused: readonly SpanRefusal[];
  /** Events newly stored (not replays). */
  readonly storedEvents: number;
}

async function inChunks<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += TRACE_CONCURRENCY) {
    await Promise.all(items.slice(start, start + TRACE_CONCURRENCY).map(work));
  }
}

class Refusals {
  private readonly bySpan = new Map<string, SpanRefusal>();

  refuse(traceId: string, spanId: string, error: AtsError): void {
    const key = `${traceId}/${spanId}`;
    if (!this.bySpan.has(key)) this.bySpan.set(key, { traceId, spanId, message: error.message });
  }

  has(traceId: string, spanId: string): boolean {
    return this.bySpan.has(`${traceId}/${spanId}`);
  }

  list(): SpanRefusal[] {
    return [...this.bySpan.values()];
  }
}

function serviceRefusal(error: unknown): AtsError {
  if (error instanceof AtsError) return error;
  throw error;
}

/** Ends the trace's session from its root span: tokens summed over the inference spans recorded so far. */
async function endTraceSession(principal: Principal, plan: TracePlan, session: TraceSession, nowMs: number) {
  const end = plan.end;
  if (end === undefined) return;
  const stored = (await getTraceSession(principal, plan.traceId)) ?? session;
  if (stored.provisionalName) {
    // Started from its children: the root's name, and what the root says of the run merged into the metadata
    // (agentName and userId stay: the session's rollups are counted under them; docs/otel.md).
    const current = await getSession(principal, stored.sessionId, nowMs);
    const metadata = { ...current.metadata, ...plan.start.metadata };
    await nameTraceSession(principal, plan.traceId, stored.sessionId, end.name, metadata);
  }
  const totals = sessionTotals(stored.usage.values(), end.rootCost);
  try {
    await updateSession(
      principal,
      stored.sessionId,
      {
        status: end.status,
        completedAt: new Date(end.completedAtMs).toISOString(),
        success: end.status === "completed",
        failureReason: end.failureReason,
        durationMs: end.durationMs,
        promptTokens: totals.promptTokens,
        completionTokens: totals.completionTokens,
        totalTokens: totals.totalTokens,
        estimatedCost: totals.estimatedCost,
      },
      nowMs,
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    // Already ended (the root exported again after its session ended): the span is stored, nothing changes.
    // Still active: it kept changing while being ended; the request fails so the exporter retries it.
    const session = await getSession(principal, stored.sessionId, nowMs);
    if (session.status === "active")
      throw new Error(`Session ${stored.sessionId} could not be ended`, { cause: error });
  }
}

export async function ingestSpans(
  principal: Principal,
  spans: readonly OtelSpan[],
  nowMs = Date.now(),
): Promise<IngestOutcome> {
  const plans = planTraces(spans);
  const refusals = new Refusals();
  const sessions = new Map<string, TraceSession>();
  await inChunks(plans, async (plan) => {
    try {
      sessions.set(plan.traceId, await resolveTraceSession(principal, plan.traceId, plan.start, nowMs));
    } catch (error) {
      const refusal = serviceRefusal(error);
      for (const spanId of plan.spanIds) refusals.refuse(plan.traceId, spanId, refusal);
    }
  });

  const inputs: BatchEventInput[] = [];
  const origins: { traceId: string; spanId: string }[] = [];
  for (const plan of plans) {
    const session = sessions.get(plan.traceId);
    if (session === undefined) continue;
    for (const planned of plan.events) {
      inputs.push({
        index: inputs.length,
        event: { ...planned.event, sessionId: session.sessionId },
        idempotencyKey: planned.idempotencyKey,
      });
      origins.push({ traceId: plan.traceId, spanId: planned.spanId });
    }
  }
  let storedEvents = 0;
  for (const result of await recordEventBatch(principal, inputs, nowMs)) {
    const origin = origins[result.index];
    if (origin === undefined) continue;
    if ("id" in result) {
      if (!result.replayed) storedEvents++;
      continue;
    }
    refusals.refuse(origin.traceId, origin.spanId, serviceRefusal(result.error));
  }

  await inChunks(plans, async (plan) => {
    const session = sessions.get(plan.traceId);
    if (session === undefined) return;
    const usage = new Map([...plan.usage].filter(([spanId]) => !refusals.has(plan.traceId, spanId)));
    if (usage.size > 0) await recordInferenceUsage(principal, plan.traceId, usage);
    const root = plan.rootSpanId;
    if (plan.end === undefined || root === undefined || refusals.has(plan.traceId, root)) return;
    try {
      await endTraceSession(principal, plan, session, nowMs);
    } catch (error) {
      refusals.refuse(plan.traceId, root, serviceRefusal(error));
    }
  });
  return { refused: refusals.list(), storedEvents };
}
