/**
 * How the spans of one agent run (one trace) become a session and its events (docs/otel.md has the table).
 * The spans come normalised (genai-span.ts: each dialect read its own spans), so this is the one planner of
 * every dialect. Pure: the store writes what the plan says.
 *
 * - The trace is the session. What the spans at hand say of it (name, agent, user, conversation, metadata)
 *   starts it; each claim of the agent or the user has a strength (the root's is the strongest, a resource's
 *   the weakest), so that spans arriving later can name the agent and user of a session their siblings
 *   started (the store moves the session to them when their claim is stronger).
 * - Tool spans are `tool_call` events, model calls `llm_decision` events, sub-agents and marked events
 *   `state_change` events, and every exception event (or ERROR status without one) an `error` event.
 * - A model call wrapped in another model call's span (a framework's span around the client library's) is
 *   one call (genai-call-merge.ts): the innermost span's event, each field of its content the richer of the
 *   two spans', its tokens counted once (the inner's when it has counts, else the wrapper's). Across requests,
 *   the call recorded first stays the one counted, and its partner's content enriches its stored event.
 * - A model call under a `step` span (one turn of a framework's loop: Mastra's `model_step`) takes the turn's
 *   messages where the turn has them: the turn records what it sent and got (tool calls included), the call
 *   its usage.
 * - Every event's idempotency key is `otel:<spanId>:<n>`, its time the span's start (an exception's own
 *   time): a span exported twice names the same events. The event of a span (tool, model call, sub-agent,
 *   marked event) keeps the span's duration (`durationMs`); error events are points in time (an exception's
 *   time, or the span's end), without one.
 * - The root span ends the session; its tokens are those of the model calls only.
 */
import type { TokenUsage } from "../pricing/usage.js";
import type { NewEvent } from "./event.js";
import { type DecisionContent, mergedCall } from "./genai-call-merge.js";
import { answerText } from "./genai-messages.js";
import type { GenAiSpan, InferenceUsage } from "./genai-span.js";
import { hasUsage } from "./genai-span.js";
import type { JsonObject, JsonValue } from "./json.js";
import { LIMITS } from "./limits.js";
import { type Attributes, firstString, STATUS_ERROR, stringAttribute } from "./otel-span.js";
import type { FinalStatus } from "./session.js";
import { type CallExtent, EXTENT_NAME_CHARS, enclosedPairs } from "./unlinked-call-pairs.js";

export type { InferenceUsage } from "./genai-span.js";

/** `userId` of a session whose spans name no user. */
export const ANONYMOUS_USER = "anonymous";
/** `agentName` of a session whose spans name no agent and whose resource has no `service.name`. */
export const UNKNOWN_AGENT = "unknown_service";
/** Longest answer text kept as an `llm_decision`'s `reasoning`. */
export const ANSWER_CHARS = 16 * 1024;
/** Budget of the resource attributes copied into a session's metadata (JSON bytes). */
const RESOURCE_METADATA_BYTES = 8 * 1024;
/** Budget of a dialect's run metadata copied into a session's metadata (JSON bytes). */
const DIALECT_METADATA_BYTES = 8 * 1024;
/** Metadata key of a session started from its children, until its root span arrives. */
export const AWAITING_ROOT = "otel.awaiting_root";

/**
 * How strongly the spans at hand name the session's agent: a stronger claim moves the session. The values are
 * stored in the trace records (trace-session-store.ts): a new claim goes between two, none is renumbered.
 * `rootName`: the root's own name when it is all the root says of the agent (a workflow, chain or trace: the
 * span's `runName`), above the resource's `service.name`, below any span naming the agent.
 */
export const AGENT_CLAIM = { none: 0, serviceName: 1, rootName: 1.5, anySpan: 2, agentSpan: 3, rootSpan: 4 } as const;
/**
 * Names SDKs give the root of every run when the user names none: the OpenAI Agents SDK's trace (JavaScript and
 * Python). A root of such a name that names no agent of its own is generic: no claim of the agent, and no name
 * for the session, which is named after its agent instead (`standInName`).
 */
const DEFAULT_RUN_NAMES: ReadonlySet<string> = new Set(["Agent workflow"]);
/** How strongly the spans at hand name the session's user. */
export const USER_CLAIM = { none: 0, resource: 1, anySpan: 2, rootSpan: 3 } as const;

export interface TraceStart {
  readonly traceId: string;
  readonly name: string;
  readonly agentName: string;
  readonly userId: string;
  /** The strength of the agent's claim (AGENT_CLAIM) and of the user's (USER_CLAIM). */
  readonly agentClaim: number;
  readonly userClaim: number;
  readonly conversationId?: string | undefined;
  readonly metadata: JsonObject;
  readonly startedAtMs: number;
  /** Whether `name` is a stand-in (no root span yet): the root's name replaces it when the root arrives. */
  readonly provisionalName: boolean;
  /**
   * The root at hand is generic (a default run name, no agent of its own): the session is named after its agent
   * (`standInName`) when the root arrives, and its name follows the agent when a stronger claim moves it.
   */
  readonly genericRoot: boolean;
}

export interface TraceEnd {
  readonly name: string;
  readonly status: FinalStatus;
  readonly failureReason?: string | undefined;
  readonly completedAtMs: number;
  readonly durationMs: number;
  /** The root span's own cost, used when no model call carries one. */
  readonly rootCost?: number | undefined;
  /** The root span's own usage, used when the trace has no model call with usage. */
  readonly rootUsage?: InferenceUsage | undefined;
}

/** One event of a span: its idempotency key and the event, without its session. */
export interface PlannedSpanEvent {
  readonly spanId: string;
  readonly idempotencyKey: string;
  readonly event: Omit<NewEvent, "sessionId" | "id"> & { readonly occurredAt: string };
  /** Built from a model call and the span(s) wrapping it (genai-call-merge.ts mergedCall). */
  readonly merged?: boolean | undefined;
}

/**
 * The content a span brings to a model call's event stored by an earlier request (its partner's: the span that
 * wraps it, or the one it wraps): merged into that event's content, never a second event or count.
 */
export interface DecisionEnrichment {
  /** The span whose content this is (its own `llm_decision` is not stored). */
  readonly spanId: string;
  /** The stored `llm_decision` it enriches. */
  readonly eventId: string;
  readonly content: DecisionContent;
}

/**
 * A model call of the trace: its span, its parent span (to tell wrappers), its usage, and when, by what and of
 * which model its span ran (to tell the same call seen by an unlinked span: unlinked-call-pairs.ts runsWithin).
 */
export interface PlannedInference extends CallExtent {
  readonly usage: InferenceUsage;
}

export interface TracePlan {
  readonly traceId: string;
  /** Every span of the trace in the request (for per-span outcomes). */
  readonly spanIds: readonly string[];
  readonly start: TraceStart;
  readonly events: readonly PlannedSpanEvent[];
  /** The model calls of the trace in the request (wrappers of another call here left out). */
  readonly inference: readonly PlannedInference[];
  /** The root span (the one without a parent), when it is in the request; it ends the session. */
  readonly rootSpanId?: string | undefined;
  readonly end?: TraceEnd | undefined;
  /** Content of this request's spans for model calls' events stored by earlier requests (withoutRecordedPairs). */
  readonly enrichments?: readonly DecisionEnrichment[] | undefined;
}

/** Text made safe to store as a name: well-formed Unicode, at most `LIMITS.nameLength` characters and `nameBytes`. */
export function storableName(text: string, fallback: string): string {
  let name = text.toWellFormed().trim();
  if (name.length > LIMITS.nameLength) name = headOf(name, LIMITS.nameLength);
  while (Buffer.byteLength(name, "utf8") > LIMITS.nameBytes) name = headOf(name, name.length - 1);
  return name.length > 0 ? name : fallback;
}

/** The first `max` UTF-16 units of well-formed text, without the half of a surrogate pair a cut would leave. */
function headOf(text: string, max: number): string {
  const head = text.slice(0, max);
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}

/** Well-formed text of at most `max` UTF-16 units (a longer one cut, with `…`). */
export function cutText(text: string, max: number): string {
  const wellFormed = text.toWellFormed();
  return wellFormed.length <= max ? wellFormed : `${headOf(wellFormed, max - 1)}…`;
}

const TOKEN_COUNTS = [
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheCreationTokens",
] as const satisfies readonly (keyof InferenceUsage)[];

/** The session's totals: tokens summed over model calls only (each at most maxTokens); cost over them, else the root's own. */
export function sessionTotals(usage: Iterable<InferenceUsage>, rootCost?: number) {
  const sums: { -readonly [K in keyof InferenceUsage]?: number } = {};
  for (const entry of usage) {
    for (const key of [...TOKEN_COUNTS, "cost"] as const) {
      const value = entry[key];
      if (value !== undefined) sums[key] = (sums[key] ?? 0) + value;
    }
  }
  const estimatedCost = sums.cost ?? rootCost;
  return {
    ...(Object.fromEntries(
      TOKEN_COUNTS.map((key) => [key, sums[key] === undefined ? undefined : Math.min(sums[key], LIMITS.maxTokens)]),
    ) as Record<(typeof TOKEN_COUNTS)[number], number | undefined>),
    estimatedCost: estimatedCost === undefined ? undefined : Math.min(estimatedCost, LIMITS.maxCostUsd),
  };
}

/** A JSON object from a tool's arguments or result: JSON objects as they are, anything else wrapped. */
function toolPayload(value: JsonValue | undefined, wrapper: string): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value;
  return { [wrapper]: value };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A span's duration as an event's `durationMs`: end − start in whole milliseconds, 0 to `LIMITS.maxDurationMs`. */
export function spanDurationMs(span: { readonly startMs: number; readonly endMs: number }): number {
  const duration = Math.round(span.endMs - span.startMs);
  return Number.isFinite(duration) ? Math.min(Math.max(0, duration), LIMITS.maxDurationMs) : 0;
}

function defined(object: Record<string, JsonValue | undefined>): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) result[key] = value;
  return result;
}

function toolNameOf(span: GenAiSpan): string {
  return storableName(span.toolName ?? "tool", "tool");
}

/**
 * The event's `usage` (functions/pricing/usage.ts) from a model call's: the counts it has (the cache writes
 * under their event name, `cacheWriteTokens`), or none when it has no count.
 */
export function eventUsage(usage: InferenceUsage): TokenUsage | undefined {
  const counts: { -readonly [K in keyof TokenUsage]: number } = {};
  if (usage.promptTokens !== undefined) counts.promptTokens = usage.promptTokens;
  if (usage.completionTokens !== undefined) counts.completionTokens = usage.completionTokens;
  if (usage.totalTokens !== undefined) counts.totalTokens = usage.totalTokens;
  if (usage.cacheReadTokens !== undefined) counts.cacheReadTokens = usage.cacheReadTokens;
  if (usage.cacheCreationTokens !== undefined) counts.cacheWriteTokens = usage.cacheCreationTokens;
  if (usage.reasoningTokens !== undefined) counts.reasoningTokens = usage.reasoningTokens;
  return Object.keys(counts).length === 0 ? undefined : counts;
}

/** The model a call's event names: the one the provider answered with, else the one requested (as a stored name). */
export function eventModel(span: Pick<GenAiSpan, "model" | "responseModel">): string | undefined {
  const model = [span.responseModel, span.model].find((name) => name !== undefined && name.trim() !== "");
  return model === undefined ? undefined : storableName(model, "");
}

function llmDecision(span: GenAiSpan): PlannedSpanEvent["event"] {
  const usage = span.usage ?? {};
  const model = eventModel(span);
  const counts = eventUsage(usage);
  const answer = span.answer ?? answerText(span.outputMessages);
  const input = defined({
    operation: span.operation,
    provider: span.provider,
    model: span.model,
    temperature: span.temperature,
    maxTokens: span.maxTokens,
    topP: span.topP,
    systemInstructions: span.systemInstructions,
    messages: span.inputMessages,
  });
  const output = defined({
    model: span.responseModel,
    responseId: span.responseId,
    finishReasons: span.finishReasons,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheCreationTokens: usage.cacheCreationTokens,
    durationMs: Math.round(span.span.endMs - span.span.startMs),
    messages: span.outputMessages,
  });
  return {
    eventType: "llm_decision",
    toolInput: input,
    toolOutput: output,
    reasoning: answer === undefined ? undefined : cutText(answer, ANSWER_CHARS),
    estimatedCost: usage.cost,
    occurredAt: iso(span.span.startMs),
    durationMs: spanDurationMs(span.span),
    ...(model === undefined || model === "" ? {} : { model }),
    ...(counts === undefined ? {} : { usage: counts }),
  };
}

function toolCall(span: GenAiSpan): PlannedSpanEvent["event"] {
  return {
    eventType: "tool_call",
    toolName: toolNameOf(span),
    toolInput: toolPayload(span.toolArguments, "arguments"),
    toolOutput: toolPayload(span.toolResult, "result"),
    estimatedCost: span.cost,
    occurredAt: iso(span.span.startMs),
    durationMs: spanDurationMs(span.span),
  };
}

/** A point of the run the application marked (Langfuse's `event` observation): its name, input and output. */
function markedEvent(span: GenAiSpan): PlannedSpanEvent["event"] {
  return {
    eventType: "state_change",
    reasoning: cutText(span.span.name, LIMITS.nameLength),
    toolInput: toolPayload(span.toolArguments, "input"),
    toolOutput: toolPayload(span.toolResult, "output"),
    occurredAt: iso(span.span.startMs),
    durationMs: spanDurationMs(span.span),
  };
}

function subAgent(span: GenAiSpan): PlannedSpanEvent["event"] {
  return {
    eventType: "state_change",
    reasoning: cutText(span.span.name, LIMITS.nameLength),
    toolInput: defined({ operation: span.operation, agentName: span.agentName, agentId: span.agentId }),
    occurredAt: iso(span.span.startMs),
    durationMs: spanDurationMs(span.span),
  };
}

/** The span's error events: one per `exception` event, or one for an ERROR status without any. */
function errorEvents(span: GenAiSpan): PlannedSpanEvent["event"][] {
  const { span: raw } = span;
  const toolName = span.role === "tool" ? toolNameOf(span) : undefined;
  const errors: PlannedSpanEvent["event"][] = [];
  for (const event of raw.events) {
    if (event.name !== "exception") continue;
    const type = stringAttribute(event.attributes, "exception.type");
    const message = stringAttribute(event.attributes, "exception.message") ?? type ?? "exception";
    const stacktrace = stringAttribute(event.attributes, "exception.stacktrace");
    errors.push({
      eventType: "error",
      toolName,
      reasoning: cutText(message, LIMITS.failureReasonLength),
      toolOutput: defined({
        spanName: cutText(raw.name, LIMITS.nameLength),
        exceptionType: type,
        stacktrace: stacktrace === undefined ? undefined : cutText(stacktrace, 8 * 1024),
      }),
      occurredAt: iso(event.timeMs),
    });
  }
  if (errors.length === 0 && (raw.status.code === STATUS_ERROR || span.failure !== undefined)) {
    const errorType = stringAttribute(raw.attributes, "error.type");
    errors.push({
      eventType: "error",
      toolName,
      reasoning: cutText(
        raw.status.message || span.failure || errorType || `${raw.name} failed`,
        LIMITS.failureReasonLength,
      ),
      toolOutput: defined({ spanName: cutText(raw.name, LIMITS.nameLength), errorType }),
      occurredAt: iso(raw.endMs),
    });
  }
  return errors;
}

/**
 * The events of one span, in order; the root agent span has none of its own (it is the session). A model
 * call that wraps another (`wrapper`) has no `llm_decision` of its own, but keeps the keys of its error events.
 */
export function spanEvents(span: GenAiSpan, isRoot: boolean, wrapper = false): PlannedSpanEvent[] {
  const main =
    span.role === "tool"
      ? toolCall(span)
      : span.role === "inference"
        ? llmDecision(span)
        : span.role === "agent" && !isRoot
          ? subAgent(span)
          : span.role === "event" && !isRoot
            ? markedEvent(span)
            : undefined;
  const events = [...(main === undefined ? [] : [main]), ...errorEvents(span)];
  return events
    .map((event, ordinal) => ({
      spanId: span.span.spanId,
      idempotencyKey: `otel:${span.span.spanId}:${ordinal}`,
      event,
    }))
    .filter((_planned, ordinal) => !(wrapper && ordinal === 0 && main?.eventType === "llm_decision"));
}

function resourceMetadata(resource: Attributes): JsonObject {
  const metadata: JsonObject = {};
  let bytes = 2;
  for (const [key, value] of resource) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") continue;
    const entryBytes = Buffer.byteLength(JSON.stringify({ [key]: value }), "utf8");
    if (bytes + entryBytes > RESOURCE_METADATA_BYTES) break;
    metadata[key] = typeof value === "string" ? cutText(value, 1024) : value;
    bytes += entryBytes;
  }
  return metadata;
}

/** A dialect's run metadata, when it fits its budget (JSON parsed from attributes may be anything). */
function dialectMetadata(spans: readonly GenAiSpan[]): JsonObject {
  const merged: JsonObject = {};
  for (const span of spans) {
    for (const [key, value] of Object.entries(span.metadata ?? {})) {
      if (Object.hasOwn(merged, key)) continue;
      if (Buffer.byteLength(JSON.stringify(value), "utf8") <= DIALECT_METADATA_BYTES) merged[key] = value;
    }
  }
  return merged;
}

interface Claim {
  readonly value: string;
  readonly strength: number;
}

/** The strongest claim of `read` among the spans (the first of equals, spans taken root first, then by start). */
function strongest(
  spans: readonly GenAiSpan[],
  claims: readonly { strength: number; read: (span: GenAiSpan) => string | undefined }[],
): Claim | undefined {
  for (const { strength, read } of claims) {
    for (const span of spans) {
      const value = read(span);
      if (value !== undefined) return { value, strength };
    }
  }
  return undefined;
}

const isRootSpan = (span: GenAiSpan) => span.span.parentSpanId === undefined;

/**
 * A root that names no agent of its own and whose name is an SDK's default for every run ("Agent workflow"):
 * it says nothing of the agent, nor of the session.
 */
function isGenericRoot(span: GenAiSpan): boolean {
  return isRootSpan(span) && span.agentName === undefined && DEFAULT_RUN_NAMES.has(span.span.name);
}

/** The agent the spans at hand name, and how strongly. */
export function agentClaim(spans: readonly GenAiSpan[]): Claim | undefined {
  return strongest(spans, [
    { strength: AGENT_CLAIM.rootSpan, read: (span) => (isRootSpan(span) ? span.agentName : undefined) },
    { strength: AGENT_CLAIM.agentSpan, read: (span) => (span.role === "agent" ? span.agentName : undefined) },
    { strength: AGENT_CLAIM.anySpan, read: (span) => span.agentName },
    {
      strength: AGENT_CLAIM.rootName,
      read: (span) => (isRootSpan(span) && !isGenericRoot(span) ? span.runName : undefined),
    },
    { strength: AGENT_CLAIM.serviceName, read: (span) => stringAttribute(span.span.resource, "service.name") },
  ]);
}

/**
 * The name of a session whose spans give it none (no root yet, or a generic root): `invoke_agent <agent>` after
 * its agent, `trace <traceId>` while nothing names the agent (`claim` AGENT_CLAIM.none).
 */
export function standInName(traceId: string, agentName: string, claim: number): string {
  const name = claim === AGENT_CLAIM.none ? `trace ${traceId}` : `invoke_agent ${agentName}`;
  return storableName(name, `trace ${traceId}`);
}

/** The user the spans at hand name, and how strongly. */
export function userClaim(spans: readonly GenAiSpan[]): Claim | undefined {
  const userKeys = ["user.id", "enduser.id"];
  return strongest(spans, [
    { strength: USER_CLAIM.rootSpan, read: (span) => (isRootSpan(span) ? span.userId : undefined) },
    { strength: USER_CLAIM.anySpan, read: (span) => span.userId },
    { strength: USER_CLAIM.resource, read: (span) => firstString(span.span.resource, userKeys) },
  ]);
}

/** The spans root first, then by start time (outer spans before the ones they contain). */
function rootFirst(spans: readonly GenAiSpan[]): GenAiSpan[] {
  return [...spans].sort((a, b) => Number(isRootSpan(b)) - Number(isRootSpan(a)) || a.span.startMs - b.span.startMs);
}

/** What the spans at hand say of the session. */
export function traceStart(traceId: string, spans: readonly GenAiSpan[]): TraceStart {
  const ordered = rootFirst(spans);
  const root = ordered.find(isRootSpan);
  const inference = ordered.find((span) => span.role === "inference");
  const agent = agentClaim(ordered);
  const user = userClaim(ordered);
  const agentName = storableName(agent?.value ?? UNKNOWN_AGENT, UNKNOWN_AGENT);
  const genericRoot = root !== undefined && isGenericRoot(root);
  const standIn = standInName(traceId, agentName, agent?.strength ?? AGENT_CLAIM.none);
  const first = (read: (span: GenAiSpan) => string | undefined) => {
    for (const span of ordered) {
      const value = read(span);
      if (value !== undefined) return cutText(value, 1024);
    }
    return undefined;
  };
  const conversationId = first((span) => span.conversationId);
  const metadata: JsonObject = {
    ...(ordered[0] === undefined ? {} : { resource: resourceMetadata(ordered[0].span.resource) }),
    ...dialectMetadata(ordered),
    "otel.trace_id": traceId,
    ...defined({
      "gen_ai.conversation.id": conversationId,
      "gen_ai.agent.id": first((span) => span.agentId),
      "gen_ai.provider.name": inference?.provider === undefined ? undefined : cutText(inference.provider, 1024),
      "gen_ai.request.model": inference?.model === undefined ? undefined : cutText(inference.model, 1024),
      [AWAITING_ROOT]: root === undefined ? true : undefined,
    }),
  };
  return {
    traceId,
    name: root === undefined || genericRoot ? standIn : storableName(root.span.name, standIn),
    agentName,
    userId: storableName(user?.value ?? ANONYMOUS_USER, ANONYMOUS_USER),
    agentClaim: agent?.strength ?? AGENT_CLAIM.none,
    userClaim: user?.strength ?? USER_CLAIM.none,
    conversationId,
    metadata,
    startedAtMs: root?.span.startMs ?? Math.min(...spans.map((span) => span.span.startMs)),
    provisionalName: root === undefined,
    genericRoot,
  };
}

/** The end of the session, from its root span. */
export function traceEnd(root: GenAiSpan): TraceEnd {
  const { span } = root;
  const failed = span.status.code === STATUS_ERROR || root.failure !== undefined;
  const exception = span.events.find((event) => event.name === "exception");
  const reason =
    span.status.message ||
    root.failure ||
    (exception === undefined ? undefined : stringAttribute(exception.attributes, "exception.message")) ||
    stringAttribute(span.attributes, "error.type") ||
    `${span.name} failed`;
  const { cost, ...tokens } = root.usage ?? {};
  return {
    name: storableName(span.name, `trace ${span.traceId}`),
    status: failed ? "failed" : "completed",
    failureReason: failed ? cutText(reason, LIMITS.failureReasonLength) : undefined,
    completedAtMs: Math.max(span.endMs, span.startMs),
    durationMs: Math.max(0, Math.round(span.endMs - span.startMs)),
    rootCost: cost ?? root.cost,
    rootUsage: hasUsage(tokens) ? tokens : undefined,
  };
}

/**
 * The model calls among `spans` and how they nest: `wrappers`, the calls whose span wraps another call's (their
 * child is a call: a framework's span around the client library's); `calls`, each innermost call merged with
 * the wrappers around it (mergedCall: the richer content of each, the tokens once). A wrapper of several calls
 * (a retry, a fallback) is merged into none of them: whose tokens it holds cannot be told.
 */
function nestedCalls(spans: readonly GenAiSpan[]): { wrappers: Set<string>; calls: Map<string, GenAiSpan> } {
  const inference = new Map<string, GenAiSpan>();
  for (const span of spans) if (span.role === "inference") inference.set(span.span.spanId, span);
  const innerCalls = new Map<string, number>();
  for (const span of inference.values()) {
    const parent = span.span.parentSpanId;
    if (parent !== undefined && parent !== span.span.spanId && inference.has(parent))
      innerCalls.set(parent, (innerCalls.get(parent) ?? 0) + 1);
  }
  const wrappers = new Set(innerCalls.keys());
  const calls = new Map<string, GenAiSpan>();
  for (const span of inference.values()) {
    if (wrappers.has(span.span.spanId)) continue;
    let merged = span;
    const seen = new Set([span.span.spanId]);
    let parentId = span.span.parentSpanId;
    for (let wrapper = parentId === undefined ? undefined : inference.get(parentId); wrapper !== undefined; ) {
      if (seen.has(wrapper.span.spanId) || innerCalls.get(wrapper.span.spanId) !== 1) break;
      seen.add(wrapper.span.spanId);
      merged = mergedCall(merged, wrapper);
      parentId = wrapper.span.parentSpanId;
      wrapper = parentId === undefined ? undefined : inference.get(parentId);
    }
    calls.set(span.span.spanId, merged);
  }
  // The same call seen by two unlinked spans (a framework's beside the client library's, both under the run's).
  for (const [inner, outer] of enclosedPairs([...calls.values()].map(callExtent))) {
    const innerCall = calls.get(inner);
    const outerCall = calls.get(outer);
    if (innerCall === undefined || outerCall === undefined) continue;
    calls.set(inner, mergedCall(innerCall, outerCall));
    calls.delete(outer);
    wrappers.add(outer);
  }
  return { wrappers, calls };
}

/** Where, when and by what a model call's span ran. */
function callExtent(call: GenAiSpan): CallExtent {
  const models = [call.model, call.responseModel].filter(
    (model): model is string => model !== undefined && model !== "",
  );
  return {
    spanId: call.span.spanId,
    parentSpanId: call.span.parentSpanId,
    startMs: call.span.startMs,
    endMs: call.span.endMs,
    scope: call.span.scope?.slice(0, EXTENT_NAME_CHARS),
    models: models.map((model) => model.slice(0, EXTENT_NAME_CHARS)),
  };
}

/**
 * The spans with each model call under a `step` span (of the same request) given the turn's messages where the
 * turn has them: its input messages, and its output messages with the answer's text (else the call's own).
 */
export function withTurnContent(spans: readonly GenAiSpan[]): GenAiSpan[] {
  const keyOf = (traceId: string, spanId: string) => `${traceId}/${spanId}`;
  const steps = new Map(
    spans.filter((span) => span.role === "step").map((span) => [keyOf(span.span.traceId, span.span.spanId), span]),
  );
  if (steps.size === 0) return [...spans];
  return spans.map((span) => {
    const parent = span.span.parentSpanId;
    const step =
      span.role === "inference" && parent !== undefined ? steps.get(keyOf(span.span.traceId, parent)) : undefined;
    if (step === undefined) return span;
    return {
      ...span,
      inputMessages: step.inputMessages ?? span.inputMessages,
      outputMessages: step.outputMessages ?? span.outputMessages,
      answer: step.answer ?? span.answer,
    };
  });
}

/** The plans of the traces of a request, one per trace id, in the order the traces first appear. */
export function planTraces(spans: readonly GenAiSpan[]): TracePlan[] {
  const byTrace = new Map<string, GenAiSpan[]>();
  for (const span of withTurnContent(spans)) {
    const group = byTrace.get(span.span.traceId);
    if (group === undefined) byTrace.set(span.span.traceId, [span]);
    else group.push(span);
  }
  return [...byTrace].map(([traceId, traceSpans]) => {
    const root = traceSpans.find(isRootSpan);
    const { wrappers, calls } = nestedCalls(traceSpans);
    return {
      traceId,
      spanIds: traceSpans.map((span) => span.span.spanId),
      start: traceStart(traceId, traceSpans),
      events: traceSpans.flatMap((span) => {
        const call = calls.get(span.span.spanId);
        const events = spanEvents(call ?? span, span === root, wrappers.has(span.span.spanId));
        return call === undefined || call === span ? events : events.map((planned) => ({ ...planned, merged: true }));
      }),
      inference: [...calls.values()].map((call) => ({ ...callExtent(call), usage: call.usage ?? {} })),
      rootSpanId: root?.span.spanId,
      end: root === undefined ? undefined : traceEnd(root),
    };
  });
}

/**
 * A model call recorded by an earlier request: its parent span (to tell a wrapper), its event, and when, by what
 * and of which model its span ran (absent from records kept before these were).
 */
export interface RecordedCallRef {
  readonly parentSpanId?: string | undefined;
  readonly eventId?: string | undefined;
  readonly startMs?: number | undefined;
  readonly endMs?: number | undefined;
  readonly scope?: string | undefined;
  readonly models?: readonly string[] | undefined;
}

/**
 * The plan without the model calls already recorded in another request as the other half of a wrapper pair: a
 * call whose inner call was recorded (`recorded`: by span id), or whose wrapper was — its parent, or an unlinked
 * span it ran within or around (unlinked-call-pairs.ts enclosedPairs). The recorded call stays the one counted; the
 * content of the call left out enriches its event (`enrichments`) — a wrapper only the event of its one inner
 * call (of several, whose it is cannot be told).
 */
export function withoutRecordedPairs(plan: TracePlan, recorded: ReadonlyMap<string, RecordedCallRef>): TracePlan {
  const innerOf = new Map<string, string[]>();
  for (const [spanId, call] of recorded) {
    if (call.parentSpanId === undefined) continue;
    const inner = innerOf.get(call.parentSpanId);
    if (inner === undefined) innerOf.set(call.parentSpanId, [spanId]);
    else inner.push(spanId);
  }
  const partners = new Map<string, string | undefined>();
  for (const call of plan.inference) {
    if (recorded.has(call.spanId)) continue;
    const inner = innerOf.get(call.spanId);
    if (inner !== undefined) partners.set(call.spanId, inner.length === 1 ? inner[0] : undefined);
    else if (call.parentSpanId !== undefined && recorded.has(call.parentSpanId))
      partners.set(call.spanId, call.parentSpanId);
  }
  const extents: CallExtent[] = plan.inference.filter((call) => !recorded.has(call.spanId));
  const incoming = new Set(extents.map((call) => call.spanId));
  for (const [spanId, call] of recorded) {
    if (call.startMs !== undefined && call.endMs !== undefined)
      extents.push({ ...call, spanId, startMs: call.startMs, endMs: call.endMs });
  }
  for (const [inner, outer] of extents.length > 1 ? enclosedPairs(extents) : []) {
    if (incoming.has(inner) && !incoming.has(outer) && !partners.has(inner)) partners.set(inner, outer);
    else if (incoming.has(outer) && !incoming.has(inner) && !partners.has(outer)) partners.set(outer, inner);
  }
  if (partners.size === 0) return plan;
  const enrichments: DecisionEnrichment[] = [];
  for (const planned of plan.events) {
    if (!partners.has(planned.spanId) || planned.event.eventType !== "llm_decision") continue;
    const partner = partners.get(planned.spanId);
    const eventId = partner === undefined ? undefined : recorded.get(partner)?.eventId;
    if (eventId === undefined) continue;
    const { toolInput, toolOutput, reasoning } = planned.event;
    enrichments.push({ spanId: planned.spanId, eventId, content: { toolInput, toolOutput, reasoning } });
  }
  return {
    ...plan,
    inference: plan.inference.filter((call) => !partners.has(call.spanId)),
    events: plan.events.filter(
      (planned) => !(partners.has(planned.spanId) && planned.event.eventType === "llm_decision"),
    ),
    enrichments: [...(plan.enrichments ?? []), ...enrichments],
  };
}
