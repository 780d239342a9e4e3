/**
 * How the spans of one agent run (one trace) become a session and its events, under the OpenTelemetry
 * GenAI semantic conventions (docs/otel.md has the table). Pure: the store writes what the plan says.
 *
 * - The trace is the session. Its start (name, agent, user, metadata) is read from the spans at hand —
 *   the root span when it is among them — and fixed when the session is created.
 * - `execute_tool` spans are `tool_call` events, inference spans (`chat`, `text_completion`,
 *   `generate_content`, `embeddings`) `llm_decision` events, sub-agent spans `state_change` events, and
 *   every exception event (or ERROR status without one) an `error` event.
 * - Every event's idempotency key is `otel:<spanId>:<n>`, its time the span's start (an exception's own
 *   time): a span exported twice names the same events.
 * - The root span ends the session; its tokens are those of the inference spans only.
 */
import type { NewEvent } from "./event.js";
import { answerText, attributeJson, spanMessages } from "./genai-messages.js";
import type { JsonObject, JsonValue } from "./json.js";
import { LIMITS } from "./limits.js";
import {
  type Attributes,
  firstString,
  numberAttribute,
  type OtelSpan,
  STATUS_ERROR,
  stringAttribute,
} from "./otel-span.js";
import type { FinalStatus } from "./session.js";

/** `userId` of a session whose spans name no user (`user.id` / `enduser.id`). */
export const ANONYMOUS_USER = "anonymous";
/** `agentName` of a session whose spans name no agent and whose resource has no `service.name`. */
export const UNKNOWN_AGENT = "unknown_service";
/** Longest answer text kept as an `llm_decision`'s `reasoning`. */
export const ANSWER_CHARS = 16 * 1024;
/** Budget of the resource attributes copied into a session's metadata (JSON bytes). */
const RESOURCE_METADATA_BYTES = 8 * 1024;

export const INFERENCE_OPERATIONS = ["chat", "text_completion", "generate_content", "embeddings"] as const;
const AGENT_OPERATIONS = ["invoke_agent", "create_agent"] as const;

/** Tokens and cost of one inference span. */
export interface InferenceUsage {
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly cost?: number | undefined;
}

export interface TraceStart {
  readonly name: string;
  readonly agentName: string;
  readonly userId: string;
  readonly metadata: JsonObject;
  readonly startedAtMs: number;
  /** Whether `name` is a stand-in (no root span yet): the root's name replaces it when the root arrives. */
  readonly provisionalName: boolean;
}

export interface TraceEnd {
  readonly name: string;
  readonly status: FinalStatus;
  readonly failureReason?: string | undefined;
  readonly completedAtMs: number;
  readonly durationMs: number;
  /** The root span's own `gen_ai.usage.cost`, used when no inference span carries one. */
  readonly rootCost?: number | undefined;
}

/** One event of a span: its idempotency key and the event, without its session. */
export interface PlannedSpanEvent {
  readonly spanId: string;
  readonly idempotencyKey: string;
  readonly event: Omit<NewEvent, "sessionId" | "id"> & { readonly occurredAt: string };
}

export interface TracePlan {
  readonly traceId: string;
  /** Every span of the trace in the request (for per-span outcomes). */
  readonly spanIds: readonly string[];
  readonly start: TraceStart;
  readonly events: readonly PlannedSpanEvent[];
  /** Usage of the trace's inference spans in the request, by span id. */
  readonly usage: ReadonlyMap<string, InferenceUsage>;
  /** The root span (the one without a parent), when it is in the request; it ends the session. */
  readonly rootSpanId?: string | undefined;
  readonly end?: TraceEnd | undefined;
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

function cutText(text: string, max: number): string {
  const wellFormed = text.toWellFormed();
  return wellFormed.length <= max ? wellFormed : `${headOf(wellFormed, max - 1)}…`;
}

function operationOf(span: OtelSpan): string | undefined {
  const operation = stringAttribute(span.attributes, "gen_ai.operation.name");
  if (operation !== undefined) return operation;
  const firstWord = span.name.split(" ", 1)[0] ?? "";
  return [...INFERENCE_OPERATIONS, ...AGENT_OPERATIONS, "execute_tool"].includes(firstWord) ? firstWord : undefined;
}

function isInference(span: OtelSpan): boolean {
  const operation = operationOf(span);
  return operation !== undefined && (INFERENCE_OPERATIONS as readonly string[]).includes(operation);
}

function isAgentSpan(span: OtelSpan): boolean {
  const operation = operationOf(span);
  return operation !== undefined && (AGENT_OPERATIONS as readonly string[]).includes(operation);
}

/** A token count within the session schema's bounds (0 to LIMITS.maxTokens), else none: 2^64 is not a count. */
function tokens(value: number | undefined): number | undefined {
  return value === undefined || value < 0 || value > LIMITS.maxTokens ? undefined : Math.round(value);
}

/** The tokens and cost of an inference span, under the current and the ≤ v1.36 attribute names. */
export function inferenceUsage(attributes: Attributes): InferenceUsage {
  const promptTokens = tokens(
    numberAttribute(attributes, "gen_ai.usage.input_tokens") ??
      numberAttribute(attributes, "gen_ai.usage.prompt_tokens"),
  );
  const completionTokens = tokens(
    numberAttribute(attributes, "gen_ai.usage.output_tokens") ??
      numberAttribute(attributes, "gen_ai.usage.completion_tokens"),
  );
  const totalTokens =
    tokens(numberAttribute(attributes, "gen_ai.usage.total_tokens")) ??
    (promptTokens !== undefined || completionTokens !== undefined
      ? (promptTokens ?? 0) + (completionTokens ?? 0)
      : undefined);
  return { promptTokens, completionTokens, totalTokens, cost: costOf(attributes) };
}

function costOf(attributes: Attributes): number | undefined {
  const cost = numberAttribute(attributes, "gen_ai.usage.cost");
  // As the event and session schemas: 0, or between DynamoDB-safe magnitudes (1e-300 would underflow its numbers).
  if (cost === undefined || !(cost === 0 || (cost >= LIMITS.smallestNonZero && cost <= LIMITS.maxCostUsd))) {
    return undefined;
  }
  return cost;
}

/** The session's totals: tokens summed over inference spans only; cost over them, else the root's own. */
export function sessionTotals(usage: Iterable<InferenceUsage>, rootCost?: number) {
  let promptTokens: number | undefined;
  let completionTokens: number | undefined;
  let totalTokens: number | undefined;
  let cost: number | undefined;
  const add = (sum: number | undefined, value: number | undefined) => (value === undefined ? sum : (sum ?? 0) + value);
  for (const entry of usage) {
    promptTokens = add(promptTokens, entry.promptTokens);
    completionTokens = add(completionTokens, entry.completionTokens);
    totalTokens = add(totalTokens, entry.totalTokens);
    cost = add(cost, entry.cost);
  }
  const estimatedCost = cost ?? rootCost;
  const bounded = (sum: number | undefined) => (sum === undefined ? undefined : Math.min(sum, LIMITS.maxTokens));
  return {
    promptTokens: bounded(promptTokens),
    completionTokens: bounded(completionTokens),
    totalTokens: bounded(totalTokens),
    estimatedCost: estimatedCost === undefined ? undefined : Math.min(estimatedCost, LIMITS.maxCostUsd),
  };
}

/** A JSON object from a tool's arguments or result: parsed JSON objects as they are, anything else wrapped. */
function toolPayload(value: JsonValue | undefined, wrapper: string): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value;
  return { [wrapper]: value };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function defined(object: Record<string, JsonValue | undefined>): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) result[key] = value;
  return result;
}

function toolNameOf(span: OtelSpan): string {
  const named = stringAttribute(span.attributes, "gen_ai.tool.name");
  const fromSpanName = span.name.startsWith("execute_tool ") ? span.name.slice("execute_tool ".length) : undefined;
  return storableName(named ?? fromSpanName ?? "tool", "tool");
}

function llmDecision(span: OtelSpan): PlannedSpanEvent["event"] {
  const attributes = span.attributes;
  const usage = inferenceUsage(attributes);
  const messages = spanMessages(span);
  const answer = answerText(messages.output);
  const input = defined({
    operation: operationOf(span),
    provider: firstString(attributes, ["gen_ai.provider.name", "gen_ai.system"]),
    model: firstString(attributes, ["gen_ai.request.model", "gen_ai.response.model"]),
    temperature: numberAttribute(attributes, "gen_ai.request.temperature"),
    maxTokens: numberAttribute(attributes, "gen_ai.request.max_tokens"),
    topP: numberAttribute(attributes, "gen_ai.request.top_p"),
    systemInstructions: messages.systemInstructions,
    messages: messages.input,
  });
  const output = defined({
    model: stringAttribute(attributes, "gen_ai.response.model"),
    responseId: stringAttribute(attributes, "gen_ai.response.id"),
    finishReasons: attributeJson(attributes.get("gen_ai.response.finish_reasons")),
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    durationMs: Math.round(span.endMs - span.startMs),
    messages: messages.output,
  });
  return {
    eventType: "llm_decision",
    toolInput: input,
    toolOutput: output,
    reasoning: answer === undefined ? undefined : cutText(answer, ANSWER_CHARS),
    estimatedCost: usage.cost,
    occurredAt: iso(span.startMs),
  };
}

function toolCall(span: OtelSpan): PlannedSpanEvent["event"] {
  return {
    eventType: "tool_call",
    toolName: toolNameOf(span),
    toolInput: toolPayload(attributeJson(span.attributes.get("gen_ai.tool.call.arguments")), "arguments"),
    toolOutput: toolPayload(attributeJson(span.attributes.get("gen_ai.tool.call.result")), "result"),
    estimatedCost: costOf(span.attributes),
    occurredAt: iso(span.startMs),
  };
}

function subAgent(span: OtelSpan): PlannedSpanEvent["event"] {
  return {
    eventType: "state_change",
    reasoning: cutText(span.name, LIMITS.nameLength),
    toolInput: defined({
      operation: operationOf(span),
      agentName: stringAttribute(span.attributes, "gen_ai.agent.name"),
      agentId: stringAttribute(span.attributes, "gen_ai.agent.id"),
    }),
    occurredAt: iso(span.startMs),
  };
}

/** The span's error events: one per `exception` event, or one for an ERROR status without any. */
function errorEvents(span: OtelSpan): PlannedSpanEvent["event"][] {
  const toolName = operationOf(span) === "execute_tool" ? toolNameOf(span) : undefined;
  const errors: PlannedSpanEvent["event"][] = [];
  for (const event of span.events) {
    if (event.name !== "exception") continue;
    const type = stringAttribute(event.attributes, "exception.type");
    const message = stringAttribute(event.attributes, "exception.message") ?? type ?? "exception";
    const stacktrace = stringAttribute(event.attributes, "exception.stacktrace");
    errors.push({
      eventType: "error",
      toolName,
      reasoning: cutText(message, LIMITS.failureReasonLength),
      toolOutput: defined({
        spanName: cutText(span.name, LIMITS.nameLength),
        exceptionType: type,
        stacktrace: stacktrace === undefined ? undefined : cutText(stacktrace, 8 * 1024),
      }),
      occurredAt: iso(event.timeMs),
    });
  }
  if (errors.length === 0 && span.status.code === STATUS_ERROR) {
    const errorType = stringAttribute(span.attributes, "error.type");
    errors.push({
      eventType: "error",
      toolName,
      reasoning: cutText(span.status.message || errorType || `${span.name} failed`, LIMITS.failureReasonLength),
      toolOutput: defined({ spanName: cutText(span.name, LIMITS.nameLength), errorType }),
      occurredAt: iso(span.endMs),
    });
  }
  return errors;
}

/** The events of one span, in order; the root agent span has none of its own (it is the session). */
export function spanEvents(span: OtelSpan, isRoot: boolean): PlannedSpanEvent[] {
  const main =
    operationOf(span) === "execute_tool"
      ? toolCall(span)
      : isInference(span)
        ? llmDecision(span)
        : isAgentSpan(span) && !isRoot
          ? subAgent(span)
          : undefined;
  const events = [...(main === undefined ? [] : [main]), ...errorEvents(span)];
  return events.map((event, ordinal) => ({
    spanId: span.spanId,
    idempotencyKey: `otel:${span.spanId}:${ordinal}`,
    event,
  }));
}

function firstAcross(spans: readonly OtelSpan[], read: (span: OtelSpan) => string | undefined): string | undefined {
  for (const span of spans) {
    const value = read(span);
    if (value !== undefined) return value;
  }
  return undefined;
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

/** What the spans at hand say of the session: the root span first, then any span, then the resource. */
export function traceStart(traceId: string, spans: readonly OtelSpan[]): TraceStart {
  const root = spans.find((span) => span.parentSpanId === undefined);
  const ordered = root === undefined ? spans : [root, ...spans.filter((span) => span !== root)];
  const agentSpans = ordered.filter(isAgentSpan);
  const inference = ordered.find(isInference);
  const agent =
    firstAcross([...(root === undefined ? [] : [root]), ...agentSpans, ...ordered], (span) =>
      stringAttribute(span.attributes, "gen_ai.agent.name"),
    ) ?? firstAcross(ordered, (span) => stringAttribute(span.resource, "service.name"));
  const userKeys = ["user.id", "enduser.id"];
  const user =
    firstAcross(ordered, (span) => firstString(span.attributes, userKeys)) ??
    firstAcross(ordered, (span) => firstString(span.resource, userKeys));
  const agentName = storableName(agent ?? UNKNOWN_AGENT, UNKNOWN_AGENT);
  const standIn = agent === undefined ? `trace ${traceId}` : `invoke_agent ${agentName}`;
  const first = ordered[0];
  const metadata: JsonObject = {
    "otel.trace_id": traceId,
    ...defined({
      "gen_ai.conversation.id": firstAcross(ordered, (span) =>
        stringAttribute(span.attributes, "gen_ai.conversation.id"),
      ),
      "gen_ai.agent.id": firstAcross(ordered, (span) => stringAttribute(span.attributes, "gen_ai.agent.id")),
      "gen_ai.provider.name":
        inference === undefined
          ? undefined
          : firstString(inference.attributes, ["gen_ai.provider.name", "gen_ai.system"]),
      "gen_ai.request.model":
        inference === undefined
          ? undefined
          : firstString(inference.attributes, ["gen_ai.request.model", "gen_ai.response.model"]),
    }),
  };
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === "string") metadata[key] = cutText(value, 1024);
  }
  return {
    name: storableName(root?.name ?? standIn, standIn),
    agentName,
    userId: storableName(user ?? ANONYMOUS_USER, ANONYMOUS_USER),
    metadata: { ...(first === undefined ? {} : { resource: resourceMetadata(first.resource) }), ...metadata },
    startedAtMs: root?.startMs ?? Math.min(...spans.map((span) => span.startMs)),
    provisionalName: root === undefined,
  };
}

/** The end of the session, from its root span. */
export function traceEnd(root: OtelSpan): TraceEnd {
  const failed = root.status.code === STATUS_ERROR;
  const exception = root.events.find((event) => event.name === "exception");
  const reason =
    root.status.message ||
    (exception === undefined ? undefined : stringAttribute(exception.attributes, "exception.message")) ||
    stringAttribute(root.attributes, "error.type") ||
    `${root.name} failed`;
  return {
    name: storableName(root.name, `trace ${root.traceId}`),
    status: failed ? "failed" : "completed",
    failureReason: failed ? cutText(reason, LIMITS.failureReasonLength) : undefined,
    completedAtMs: Math.max(root.endMs, root.startMs),
    durationMs: Math.max(0, Math.round(root.endMs - root.startMs)),
    rootCost: costOf(root.attributes),
  };
}

/** The plans of the traces of a request, one per trace id, in the order the traces first appear. */
export function planTraces(spans: readonly OtelSpan[]): TracePlan[] {
  const byTrace = new Map<string, OtelSpan[]>();
  for (const span of spans) {
    const group = byTrace.get(span.traceId);
    if (group === undefined) byTrace.set(span.traceId, [span]);
    else group.push(span);
  }
  return [...byTrace].map(([traceId, traceSpans]) => {
    const root = traceSpans.find((span) => span.parentSpanId === undefined);
    const usage = new Map(traceSpans.filter(isInference).map((span) => [span.spanId, inferenceUsage(span.attributes)]));
    return {
      traceId,
      spanIds: traceSpans.map((span) => span.spanId),
      start: traceStart(traceId, traceSpans),
      events: traceSpans.flatMap((span) => spanEvents(span, span === root)),
      usage,
      rootSpanId: root?.spanId,
      end: root === undefined ? undefined : traceEnd(root),
    };
  });
}
