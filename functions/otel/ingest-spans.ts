/**
 * Records the spans of one OTLP export request. Each span is read by its dialect (dialects/normalise.ts) and
 * the spans of each trace planned (domain/genai-trace-plan.ts); then per trace: its session (found by trace
 * id, or started), what the spans change of it (a stronger claim of its agent or user moves it, the root
 * names it), the events of its spans (one batch write, each event keyed by its span so an exporter's retry
 * stores nothing twice), its model calls, the content its spans bring to a model call an earlier request
 * recorded (the other span of a wrapper pair: store/otel/decision-enrichment.ts), and — when its root span is
 * among them — the session's end. No
 * HTTP here: the route (export-traces.ts) decodes and answers.
 *
 * A refusal of the service's own (a span older than retention, a session of another state, …) refuses
 * the spans it concerns, reported in `partialSuccess`. Any other failure is its trace's alone (trace-failures.ts):
 * the trace's later steps are skipped and the other traces stored whole; then a failure a retry may cure
 * (DynamoDB unavailable) fails the request, so the exporter retries all of it — and the retry finds what was
 * already stored —, and one no retry can cure refuses the trace's spans.
 */
import { AtsError, ConflictError } from "../domain/errors.js";
import {
  AWAITING_ROOT,
  type DecisionEnrichment,
  sessionTotals,
  standInName,
  type TracePlan,
  type TraceStart,
  withoutRecordedPairs,
} from "../domain/genai-trace-plan.js";
import type { JsonObject } from "../domain/json.js";
import type { Principal } from "../domain/principal.js";
import type { Session } from "../domain/session.js";
import { type BatchEventInput, recordEventBatch } from "../store/events/event-batch-store.js";
import { enrichDecision } from "../store/otel/decision-enrichment.js";
import { attachLogMessages } from "../store/otel/otel-log-store.js";
import {
  getTraceSession,
  type RecordedCall,
  readTraceRecords,
  recordCalls,
  resolveTraceSession,
  reviseTraceSession,
  startTraceSessions,
  type TraceRevision,
  type TraceSession,
} from "../store/otel/trace-session-store.js";
import { endSession, getSession, readSessions } from "../store/sessions/session-store.js";
import type { SpanRefusal } from "./otlp-spans.js";
import { TraceFailures } from "./trace-failures.js";

/** Traces of a request whose sessions are resolved at once. */
const TRACE_CONCURRENCY = 8;

export interface IngestOutcome {
  readonly refused: readonly SpanRefusal[];
  /** Events newly stored (not replays). */
  readonly storedEvents: number;
}

/** Runs `work` on every item, TRACE_CONCURRENCY at a time (a worker takes the next item when it is done). */
async function inChunks<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(TRACE_CONCURRENCY, items.length) }, worker));
}

/** The spans refused, by `<traceId>/<spanId>` (the first reason each). */
type Refusals = Map<string, SpanRefusal>;

function refuse(refusals: Refusals, traceId: string, spanId: string, message: string): void {
  const key = `${traceId}/${spanId}`;
  if (!refusals.has(key)) refusals.set(key, { traceId, spanId, message });
}

/**
 * A failure of a trace's step: the service's refusal refuses `spanIds` (the spans it concerns); anything else is
 * the trace's failure, its later steps skipped.
 */
function failed(
  refusals: Refusals,
  failures: TraceFailures,
  traceId: string,
  spanIds: readonly string[],
  error: unknown,
): void {
  if (!(error instanceof AtsError)) failures.fail(traceId, error);
  else for (const spanId of spanIds) refuse(refusals, traceId, spanId, error.message);
}

/**
 * Whether a request's spans change anything of the trace's session as its record stands (no read of the session),
 * or a move of the session has tools still to carry (an earlier request failed before it finished).
 */
function changesSession(start: TraceStart, root: boolean, trace: TraceSession): boolean {
  return (
    trace.movePending ||
    start.agentClaim > trace.agentClaim ||
    start.userClaim > trace.userClaim ||
    (root && trace.provisionalName) ||
    (trace.conversationId === undefined && start.conversationId !== undefined)
  );
}

/**
 * The session's new name, if any: the root's on its arrival — or, for a generic root (a default run name such as
 * "Agent workflow"), the stand-in of the session's agent as it now stands; a stand-in name (no root yet, or a
 * generic one) follows the agent when a stronger claim moves it. A name the root gave stays.
 */
function renamed(start: TraceStart, root: boolean, trace: TraceSession, session: Session): string | undefined {
  const agentMoves = start.agentClaim > trace.agentClaim;
  const agentName = agentMoves ? start.agentName : session.agentName;
  const standIn = standInName(start.traceId, agentName, Math.max(start.agentClaim, trace.agentClaim));
  if (root && trace.provisionalName) return start.genericRoot ? standIn : start.name;
  const namedByStandIn = session.name === standInName(start.traceId, session.agentName, trace.agentClaim);
  return agentMoves && namedByStandIn && standIn !== session.name ? standIn : undefined;
}

/**
 * What a request's spans change of a trace's session, given the record and the session as stored: a
 * stronger claim of the agent or the user moves the session to them; the root span's arrival names it and
 * merges what the root's request says of the run over its metadata (the root's values winning); a
 * conversation id first seen joins the metadata.
 */
export function revisionFor(start: TraceStart, root: boolean, trace: TraceSession, session: Session) {
  if (!changesSession(start, root, trace)) return undefined;
  const agentMoves = start.agentClaim > trace.agentClaim;
  const userMoves = start.userClaim > trace.userClaim;
  const rootArrived = root && trace.provisionalName;
  const name = renamed(start, root, trace, session);
  const conversationId =
    trace.conversationId === undefined && start.conversationId !== undefined ? start.conversationId : undefined;
  let metadata: JsonObject | undefined;
  if (rootArrived) {
    const { [AWAITING_ROOT]: _awaiting, ...earlier } = session.metadata ?? {};
    const { [AWAITING_ROOT]: _none, ...fromRoot } = start.metadata;
    metadata = { ...earlier, ...fromRoot };
  } else if (conversationId !== undefined) {
    metadata = { ...session.metadata, "gen_ai.conversation.id": conversationId };
  }
  return {
    session: {
      agentName: agentMoves ? start.agentName : undefined,
      userId: userMoves ? start.userId : undefined,
      name,
      // The root's start, not the first child's: the session's start and its rollup day.
      createdAt: rootArrived ? new Date(start.startedAtMs).toISOString() : undefined,
      metadata,
    },
    agentClaim: Math.max(start.agentClaim, trace.agentClaim),
    userClaim: Math.max(start.userClaim, trace.userClaim),
    conversationId,
    rootArrived,
  } satisfies TraceRevision;
}

/**
 * Ends the trace's session from its root span: tokens summed over the model calls recorded so far (`recorded`:
 * the trace's record as this request's calls left it, read again when the request recorded none).
 */
async function endTraceSession(
  principal: Principal,
  plan: TracePlan,
  trace: TraceSession,
  recorded: TraceSession | undefined,
  session: Session | undefined,
  nowMs: number,
) {
  const end = plan.end;
  if (end === undefined) return;
  const stored = recorded ?? (await getTraceSession(principal, plan.traceId)) ?? trace;
  const calls = [...stored.calls.values()].map((call) => call.usage);
  const counted = calls.some((usage) => usage.promptTokens !== undefined || usage.totalTokens !== undefined);
  const totals = sessionTotals(
    counted || end.rootUsage === undefined ? calls : [...calls, end.rootUsage],
    end.rootCost,
  );
  const customMetrics: Record<string, number> = {};
  if (totals.cacheReadTokens !== undefined) customMetrics.cacheReadTokens = totals.cacheReadTokens;
  if (totals.cacheCreationTokens !== undefined) customMetrics.cacheCreationTokens = totals.cacheCreationTokens;
  try {
    await endSession(
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
        customMetrics: Object.keys(customMetrics).length === 0 ? undefined : customMetrics,
      },
      nowMs,
      session,
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

/** The session of each plan's trace, revised by what the plan's spans say of it. */
async function resolveSessions(
  principal: Principal,
  plans: readonly TracePlan[],
  refusals: Refusals,
  failures: TraceFailures,
  nowMs: number,
) {
  const sessions = new Map<string, TraceSession>();
  // Every trace's record in one read, the new traces' sessions started together (a race is settled per trace).
  const read = await readTraceRecords(
    principal,
    plans.map((plan) => plan.traceId),
  );
  const started = await startTraceSessions(
    principal,
    plans.filter((plan) => read.get(plan.traceId)?.session === undefined),
    read,
    nowMs,
  );
  await inChunks(plans, async (plan) => {
    const made = started.get(plan.traceId);
    if (made !== undefined) {
      sessions.set(plan.traceId, made);
      return;
    }
    try {
      // A new trace not started with the others is read again: another request may have started it.
      const known = read.get(plan.traceId)?.session === undefined ? undefined : read;
      const { trace, created } = await resolveTraceSession(principal, plan.traceId, plan.start, nowMs, known);
      const root = plan.end !== undefined;
      const revised =
        created || !changesSession(plan.start, root, trace)
          ? trace
          : await reviseTraceSession(
              principal,
              plan.traceId,
              (stored, session) => revisionFor(plan.start, root, stored, session),
              nowMs,
            );
      sessions.set(plan.traceId, revised);
    } catch (error) {
      failed(refusals, failures, plan.traceId, plan.spanIds, error);
    }
  });
  return sessions;
}

/** What the events of a request's traces became: how many were newly stored, each model call's event id. */
interface RecordedEvents {
  readonly storedEvents: number;
  /** `llm_decision` event ids by `<traceId>/<spanId>`. */
  readonly decisionIds: ReadonlyMap<string, string>;
  /**
   * Model calls merged with their wrappers whose event was stored already (by an earlier request holding the
   * inner span alone): their merged content enriches it, by trace id.
   */
  readonly replayedMerges: ReadonlyMap<string, readonly DecisionEnrichment[]>;
}

/**
 * Writes the events of every trace with a session in one batch: an event the service refuses refuses its span,
 * any other failure is its trace's (and a failure of the whole batch every trace's that had events in it).
 */
async function recordEvents(
  principal: Principal,
  plans: readonly TracePlan[],
  sessions: ReadonlyMap<string, TraceSession>,
  refusals: Refusals,
  failures: TraceFailures,
  nowMs: number,
): Promise<RecordedEvents> {
  const inputs: BatchEventInput[] = [];
  const origins: { traceId: string; planned: TracePlan["events"][number] }[] = [];
  for (const plan of plans) {
    const trace = sessions.get(plan.traceId);
    if (trace === undefined) continue;
    for (const event of plan.events) {
      inputs.push({
        index: inputs.length,
        event: { ...event.event, sessionId: trace.sessionId },
        idempotencyKey: event.idempotencyKey,
      });
      origins.push({ traceId: plan.traceId, planned: event });
    }
  }
  let storedEvents = 0;
  const decisionIds = new Map<string, string>();
  const replayedMerges = new Map<string, DecisionEnrichment[]>();
  let results: Awaited<ReturnType<typeof recordEventBatch>>;
  try {
    results = await recordEventBatch(principal, inputs, nowMs);
  } catch (error) {
    for (const origin of origins) failures.fail(origin.traceId, error);
    return { storedEvents, decisionIds, replayedMerges };
  }
  for (const result of results) {
    const origin = origins[result.index];
    if (origin === undefined) continue;
    const { spanId, event, merged } = origin.planned;
    if ("id" in result) {
      if (!result.replayed) storedEvents++;
      if (event.eventType !== "llm_decision") continue;
      decisionIds.set(`${origin.traceId}/${spanId}`, result.id);
      if (result.replayed && merged === true) {
        const { toolInput, toolOutput, reasoning } = event;
        const enrichment = { spanId, eventId: result.id, content: { toolInput, toolOutput, reasoning } };
        replayedMerges.set(origin.traceId, [...(replayedMerges.get(origin.traceId) ?? []), enrichment]);
      }
      continue;
    }
    failed(refusals, failures, origin.traceId, [spanId], result.error);
  }
  return { storedEvents, decisionIds, replayedMerges };
}

/**
 * A trace's model calls (with the log records of their spans), the content its spans bring to model calls stored
 * before (their partners' events), then its end when its root span is among them.
 */
async function finishTrace(
  principal: Principal,
  plan: TracePlan,
  trace: TraceSession,
  recordedEvents: RecordedEvents,
  refusals: Refusals,
  ending: Session | undefined,
  nowMs: number,
): Promise<void> {
  const { decisionIds } = recordedEvents;
  const calls = new Map<string, RecordedCall>();
  for (const call of plan.inference) {
    if (refusals.has(`${plan.traceId}/${call.spanId}`)) continue;
    calls.set(call.spanId, {
      usage: call.usage,
      parentSpanId: call.parentSpanId,
      eventId: decisionIds.get(`${plan.traceId}/${call.spanId}`),
      startMs: call.startMs,
      endMs: call.endMs,
      scope: call.scope,
      models: call.models,
    });
  }
  let recorded: TraceSession | undefined;
  if (calls.size > 0) {
    const { trace: stored, logSpans } = await recordCalls(principal, plan.traceId, calls);
    recorded = stored;
    for (const [spanId, call] of calls) {
      if (!logSpans.has(spanId) || call.eventId === undefined) continue;
      const decision = plan.events.find(
        (planned) => planned.spanId === spanId && planned.event.eventType === "llm_decision",
      )?.event;
      // Only the span's own content: the stored event keeps what ingest gave it (its cost, priced then).
      await attachLogMessages(
        principal,
        { sessionId: trace.sessionId, eventId: call.eventId, traceId: plan.traceId, spanId },
        decision === undefined
          ? undefined
          : { toolInput: decision.toolInput, toolOutput: decision.toolOutput, reasoning: decision.reasoning },
      );
    }
  }
  const enrichments = [...(plan.enrichments ?? []), ...(recordedEvents.replayedMerges.get(plan.traceId) ?? [])];
  for (const { spanId, eventId, content } of enrichments) {
    if (refusals.has(`${plan.traceId}/${spanId}`)) continue;
    await enrichDecision(principal, { sessionId: trace.sessionId, eventId }, content);
  }
  const root = plan.rootSpanId;
  if (plan.end === undefined || root === undefined || refusals.has(`${plan.traceId}/${root}`)) return;
  try {
    await endTraceSession(principal, plan, trace, recorded, ending, nowMs);
  } catch (error) {
    if (!(error instanceof AtsError)) throw error;
    refuse(refusals, plan.traceId, root, error.message);
  }
}

export async function ingestSpans(
  principal: Principal,
  planned: readonly TracePlan[],
  nowMs = Date.now(),
): Promise<IngestOutcome> {
  const refusals: Refusals = new Map();
  const failures = new TraceFailures();
  const sessions = await resolveSessions(principal, planned, refusals, failures, nowMs);
  const plans = planned.map((plan) => {
    const trace = sessions.get(plan.traceId);
    if (trace === undefined) return plan;
    return withoutRecordedPairs(plan, trace.calls);
  });
  // The sessions to end, read while the events are written (nothing else of this request changes them).
  const [recordedEvents, ending] = await Promise.all([
    recordEvents(principal, plans, sessions, refusals, failures, nowMs),
    readSessions(
      principal,
      plans.flatMap((plan) => {
        const sessionId = plan.end === undefined ? undefined : sessions.get(plan.traceId)?.sessionId;
        return sessionId === undefined ? [] : [sessionId];
      }),
      nowMs,
    ),
  ]);
  await inChunks(plans, async (plan) => {
    const trace = sessions.get(plan.traceId);
    if (trace === undefined || failures.has(plan.traceId)) return;
    try {
      await finishTrace(principal, plan, trace, recordedEvents, refusals, ending.get(trace.sessionId), nowMs);
    } catch (error) {
      failed(refusals, failures, plan.traceId, plan.spanIds, error);
    }
  });
  failures.settle(plans, (traceId, spanId, message) => refuse(refusals, traceId, spanId, message));
  return { refused: [...refusals.values()], storedEvents: recordedEvents.storedEvents };
}
