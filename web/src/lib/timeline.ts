/**
 * A session's events as a run: in time order, each with its start on the session's time axis, its duration when
 * one was recorded (the event's `durationMs`, which the clients' `wrapTool`/`wrapOpenAI` and the OpenTelemetry
 * receiver set on every timed call; else `toolOutput.durationMs`, where events recorded before it kept theirs),
 * whether a tool call failed, and a model call's usage. Pure.
 *
 * An event's time is `occurredAt` (when it happened), else `createdAt` (when it was stored), and is read as the
 * step's start, as the OpenTelemetry receiver (a span's start) and the demo record it.
 */
import type { Session, SessionEvent } from "../api/types";
import { estimatedLabelWidth, LABEL_GAP_PX } from "./axis-labels";
import { formatTickOffset } from "./format";

export function eventTime(event: Pick<SessionEvent, "occurredAt" | "createdAt">): number {
  const occurred = event.occurredAt === undefined ? Number.NaN : Date.parse(event.occurredAt);
  return Number.isNaN(occurred) ? Date.parse(event.createdAt) : occurred;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** How long the step took, when it was recorded: the event's own `durationMs`, else its output's (older events). */
export function eventDuration(event: Pick<SessionEvent, "durationMs" | "toolOutput">): number | undefined {
  return finiteNumber(event.durationMs) ?? finiteNumber(event.toolOutput?.durationMs);
}

/** What a model call (an `llm_decision` with a model or token counts) used. */
export interface ModelUsage {
  model?: string | undefined;
  provider?: string | undefined;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  totalTokens?: number | undefined;
}

export function modelUsage(event: SessionEvent): ModelUsage | undefined {
  if (event.eventType !== "llm_decision") return undefined;
  const input = event.toolInput ?? {};
  const output = event.toolOutput ?? {};
  const usage: ModelUsage = {
    model: text(output.model) ?? text(input.model),
    provider: text(input.provider),
    promptTokens: finiteNumber(output.promptTokens),
    completionTokens: finiteNumber(output.completionTokens),
    totalTokens: finiteNumber(output.totalTokens),
  };
  if (usage.totalTokens === undefined && (usage.promptTokens !== undefined || usage.completionTokens !== undefined)) {
    usage.totalTokens = (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0);
  }
  return Object.values(usage).some((value) => value !== undefined) ? usage : undefined;
}

/** The message of an error value: a string, or an object's `message`. */
function errorMessage(value: unknown): string | undefined {
  return text(value) ?? text(record(value)?.message) ?? (record(value) === undefined ? undefined : "failed");
}

/** A stack trace recorded with an event: OpenTelemetry's `stacktrace`, a serialised Error's `stack`. */
export function stackTraceOf(event: SessionEvent): string | undefined {
  const output = event.toolOutput ?? {};
  return (
    text(output.stacktrace) ??
    text(output["exception.stacktrace"]) ??
    text(output.stack) ??
    text(record(output.error)?.stack) ??
    text(record(output.details)?.stack)
  );
}

export interface TimelineEntry {
  event: SessionEvent;
  /** Epoch milliseconds. */
  startMs: number;
  /** Milliseconds since the session started. */
  offsetMs: number;
  durationMs: number | undefined;
  /** A tool call that failed: why (its output's `error`, or the error event of the same tool it led to). */
  failure?: string | undefined;
}

/** How long after a tool call's end (or its start, without a duration) an error of the same tool still belongs to it. */
const ERROR_PAIRING_MS = 1_000;

/**
 * Sorted by time (stable for equal times: the API's order), with offsets from the session start; each tool call
 * that failed carries why. A tool's `error` event is paired with the latest call of that tool before it.
 */
export function buildTimeline(events: readonly SessionEvent[], sessionStart: string): TimelineEntry[] {
  const start = Date.parse(sessionStart);
  const entries: TimelineEntry[] = events
    .map((event, index) => ({ event, index, time: eventTime(event) }))
    .sort((a, b) => a.time - b.time || a.index - b.index)
    .map(({ event, time }) => {
      const failure = event.eventType === "tool_call" ? errorMessage(event.toolOutput?.error) : undefined;
      return {
        event,
        startMs: time,
        offsetMs: Number.isNaN(start) ? 0 : time - start,
        durationMs: eventDuration(event),
        ...(failure === undefined ? {} : { failure }),
      };
    });
  entries.forEach((entry, index) => {
    const { event } = entry;
    if (event.eventType !== "error" || event.toolName === undefined) return;
    for (let candidate = index; candidate >= 0; candidate--) {
      const call = entries[candidate];
      if (call === undefined || call.event.eventType !== "tool_call" || call.event.toolName !== event.toolName)
        continue;
      const end = call.startMs + (call.durationMs ?? 0);
      if (entry.startMs <= end + ERROR_PAIRING_MS) call.failure ??= event.reasoning ?? "failed";
      return;
    }
  });
  return entries;
}

/** The session's time axis: from its start (or its first event, if earlier) to its end or its last step's end. */
export function timeAxis(
  entries: readonly TimelineEntry[],
  session: Pick<Session, "createdAt" | "completedAt" | "durationMs" | "lastActivityAt">,
): { startMs: number; endMs: number } {
  const created = Date.parse(session.createdAt);
  const startMs = Math.min(created, ...entries.map((entry) => entry.startMs));
  const ends = entries.map((entry) => entry.startMs + (entry.durationMs ?? 0));
  if (session.completedAt !== null) ends.push(Date.parse(session.completedAt));
  if (session.durationMs !== null) ends.push(created + session.durationMs);
  if (ends.length === 0) ends.push(Date.parse(session.lastActivityAt));
  const endMs = Math.max(startMs + 1, ...ends.filter((end) => Number.isFinite(end)));
  return { startMs, endMs };
}

/**
 * When the run last acted: the latest of its events' times (eventTime: `occurredAt`, else when stored) and its end
 * (`completedAt`, which a late delivery sends as when the run ended), as ISO 8601; `null` without either. Not the
 * session's `lastActivityAt`, which is when the service last heard of the run (a run delivered days late was
 * "active" at delivery).
 */
export function lastActedAt(
  events: readonly Pick<SessionEvent, "occurredAt" | "createdAt">[],
  completedAt: string | null,
): string | null {
  const times = events.map(eventTime);
  if (completedAt !== null) times.push(Date.parse(completedAt));
  const latest = Math.max(...times.filter((time) => Number.isFinite(time)));
  return Number.isFinite(latest) ? new Date(latest).toISOString() : null;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Round steps between a time axis's ticks: 1, 2, 5 × 10ⁿ ms below a second; 1, 2, 5, 10, 15, 30 s and the same in
 * minutes (steps that divide a minute, an hour); 1, 2, 3, 6, 12 h; then 1, 2, 5 × 10ⁿ days.
 */
export function* tickSteps(): Generator<number> {
  yield* [1, 2, 5, 10, 20, 50, 100, 200, 500];
  for (const unit of [SECOND, MINUTE]) for (const count of [1, 2, 5, 10, 15, 30]) yield count * unit;
  for (const count of [1, 2, 3, 6, 12]) yield count * HOUR;
  for (let power = 1; ; power *= 10) for (const count of [1, 2, 5]) yield count * power * DAY;
}

export interface TimeTick {
  /** Milliseconds from the session start. */
  offsetMs: number;
  label: string;
}

/**
 * The ticks of a time axis running from `fromMs` to `toMs` (milliseconds from the session start; the axis may start
 * before it, when an event came first): every multiple of the smallest round step (tickSteps) whose labels fit
 * `width` pixels without touching, placed in proportion to their time (the first flush left, the last flush right),
 * so a label's left edge is at x × (width − its width). Without a width (not measured yet), the session start.
 */
export function timeTicks(fromMs: number, toMs: number, width: number | undefined, fontPx: number): TimeTick[] {
  const span = toMs - fromMs;
  const ticksOf = (step: number) => {
    const ticks: TimeTick[] = [];
    for (let offset = Math.ceil(fromMs / step) * step; offset <= toMs; offset += step) {
      ticks.push({ offsetMs: offset, label: formatTickOffset(offset) });
    }
    return ticks;
  };
  if (width === undefined || !(span > 0)) return [{ offsetMs: 0, label: formatTickOffset(0) }];
  for (const step of tickSteps()) {
    // More ticks than pixels cannot fit: not worth listing.
    if (span / step > width) continue;
    const ticks = ticksOf(step);
    const labelWidth = Math.max(...ticks.map((tick) => estimatedLabelWidth(tick.label, fontPx)));
    if (ticks.length <= 1 || (step / span) * (width - labelWidth) >= labelWidth + LABEL_GAP_PX) return ticks;
  }
  return [];
}
