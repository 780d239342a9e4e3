/**
 * One agent run (a session): records its events and ends it. Every method
 * returns at once and none throws into agent code; problems go to `onError`.
 */
import { type AtsError, AtsUsageError } from "./errors.js";
import type {
  DecisionFields,
  EndFields,
  ErrorFields,
  EventType,
  LlmCallFields,
  StateChangeFields,
  ToolCallFields,
  TrackedEvent,
} from "./event-types.js";
import { type JsonObject, toJsonObject, toWellFormedString } from "./json-value.js";
import type { ScoreFields } from "./score-types.js";
import { type EventUsage, eventModel, eventUsage } from "./usage.js";

/** What a run needs from its tracker. */
export interface RunHost {
  /** Masks, checks and queues one event of `run`. */
  record(run: Run, event: TrackedEvent): void;
  /** Queues the session's end; resolves when it was sent (immediate mode) or queued (background). */
  end(run: Run, body: Record<string, unknown>): Promise<void>;
  report(error: AtsError): void;
  /** Queues a score of `run` (nothing for an unsampled run); returns its id, or undefined when not queued. */
  score(run: Run, fields: ScoreFields): string | undefined;
}

/** Token and cost totals of a run so far. */
export interface RunUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Sum of the `estimatedCost` of the run's events. */
  readonly estimatedCost: number;
  /** Whether any event reported tokens (only then are they sent with `end`). */
  readonly hasTokens: boolean;
  /**
   * Whether an event was left for the service to price (it had `model` or
   * `usage` and no `estimatedCost`); `end` then sends no default cost.
   */
  readonly hasServerPricedEvents: boolean;
}

/** An event's own fields as the methods build them: `undefined` means "not sent". */
type EventFields = {
  [K in Exclude<keyof TrackedEvent, "sessionId" | "eventType" | "occurredAt">]?: TrackedEvent[K] | undefined;
} & { occurredAt?: Date | string | undefined };

function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = toWellFormedString(typeof value === "string" ? value : String(value));
  return text === "" ? undefined : text;
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The longest `durationMs` the service takes (one year, its `LIMITS.maxDurationMs`). */
const MAX_DURATION_MS = 365 * 24 * 60 * 60 * 1000;

/** A duration the service takes: whole milliseconds from 0 to a year; anything else is not sent. */
function eventDuration(value: unknown): number | undefined {
  const duration = nonNegative(value);
  if (duration === undefined) return undefined;
  const whole = Math.round(duration);
  return whole <= MAX_DURATION_MS ? whole : undefined;
}

/** ISO 8601 UTC of a given time, or now when none (or an unreadable one) is given. */
function timestamp(value: Date | string | undefined): string {
  const time = value === undefined ? Date.now() : value instanceof Date ? value.getTime() : Date.parse(value);
  return new Date(Number.isFinite(time) ? time : Date.now()).toISOString();
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === "string" ? error : String(error);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** A tool's arguments as `toolInput`: a single object argument as itself, anything else as `{ args }`. */
function toolInputOf(args: readonly unknown[]): JsonObject {
  const [only] = args;
  if (args.length === 1 && typeof only === "object" && only !== null && !Array.isArray(only)) return toJsonObject(only);
  return toJsonObject({ args });
}

export class Run {
  /** The session id (`ses_…`), known at once: the client mints it. */
  readonly id: string;
  readonly name: string;
  readonly agentName: string;
  readonly userId: string;
  /** Whether this run is recorded (see `sampleRate`). An unsampled run accepts every call and sends nothing. */
  readonly sampled: boolean;
  /** `Date.now()` at `startSession`. */
  readonly startedAtMs: number;

  private ended = false;
  private promptTokens = 0;
  private completionTokens = 0;
  private totalTokens = 0;
  private hasTokens = false;
  private serverPriced = false;
  private cost = 0;

  /** @internal Created by `AgentTracker.startSession`. */
  constructor(
    private readonly host: RunHost,
    fields: { id: string; name: string; agentName: string; userId: string; sampled: boolean; startedAtMs: number },
  ) {
    this.id = fields.id;
    this.name = fields.name;
    this.agentName = fields.agentName;
    this.userId = fields.userId;
    this.sampled = fields.sampled;
    this.startedAtMs = fields.startedAtMs;
  }

  /**
   * Records a verdict on this run, or on one of its events (`eventId`): a number, a boolean or a label, sent after
   * the session's start with the events' retries. Allowed after `end` (a verdict often comes later). Returns the
   * score's id — pass it as `id` to change the score — or `undefined` when nothing was queued (an unsampled run, or
   * fields the service would refuse: reported to `onError`).
   */
  score(fields: ScoreFields): string | undefined {
    return this.host.score(this, fields);
  }

  /** Whether `end` was called. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Tokens and cost recorded so far. */
  get usage(): RunUsage {
    return {
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      totalTokens: this.totalTokens,
      estimatedCost: this.cost,
      hasTokens: this.hasTokens,
      hasServerPricedEvents: this.serverPriced,
    };
  }

  /** Records a `tool_call` event. */
  toolCall(fields: ToolCallFields): void {
    this.guarded(() =>
      this.emit("tool_call", {
        toolName: optionalText(fields.toolName),
        toolInput: fields.toolInput === undefined ? undefined : toJsonObject(fields.toolInput),
        toolOutput: fields.toolOutput === undefined ? undefined : toJsonObject(fields.toolOutput),
        reasoning: optionalText(fields.reasoning),
        estimatedCost: fields.estimatedCost,
        model: fields.model,
        usage: fields.usage,
        occurredAt: fields.occurredAt,
        durationMs: fields.durationMs,
      }),
    );
  }

  /** Records an `llm_decision` event: a decision point with its alternatives and confidence. */
  decision(fields: DecisionFields): void {
    this.guarded(() =>
      this.emit("llm_decision", {
        reasoning: optionalText(fields.reasoning),
        alternativesConsidered: fields.alternativesConsidered?.map((entry) => toWellFormedString(String(entry))),
        confidence: fields.confidence,
        estimatedCost: fields.estimatedCost,
        model: fields.model,
        usage: fields.usage,
        occurredAt: fields.occurredAt,
        durationMs: fields.durationMs,
      }),
    );
  }

  /** Records a `state_change` event; `from`, `to` and `details` go to `toolInput`. */
  stateChange(fields: StateChangeFields): void {
    this.guarded(() => {
      const input: Record<string, unknown> = { ...fields.details };
      if (fields.from !== undefined) input.from = fields.from;
      if (fields.to !== undefined) input.to = fields.to;
      this.emit("state_change", {
        toolInput: Object.keys(input).length === 0 ? undefined : toJsonObject(input),
        reasoning: optionalText(fields.reasoning),
        estimatedCost: fields.estimatedCost,
        model: fields.model,
        usage: fields.usage,
        occurredAt: fields.occurredAt,
        durationMs: fields.durationMs,
      });
    });
  }

  /** Records an `error` event from an `Error` (name, message, stack, cause), a string, or fields. */
  error(errorOrFields: unknown): void {
    this.guarded(() => {
      if (errorOrFields instanceof Error) {
        this.emit("error", {
          reasoning: describeError(errorOrFields),
          toolOutput: toJsonObject({ error: errorOrFields }),
        });
        return;
      }
      if (typeof errorOrFields === "object" && errorOrFields !== null && "message" in errorOrFields) {
        const fields = errorOrFields as ErrorFields;
        this.emit("error", {
          reasoning: optionalText(fields.message),
          toolName: optionalText(fields.toolName),
          toolInput: fields.details === undefined ? undefined : toJsonObject(fields.details),
          estimatedCost: fields.estimatedCost,
          model: fields.model,
          usage: fields.usage,
          occurredAt: fields.occurredAt,
          durationMs: fields.durationMs,
        });
        return;
      }
      this.emit("error", {
        reasoning: optionalText(describeError(errorOrFields)),
        toolOutput:
          typeof errorOrFields === "object" && errorOrFields !== null ? toJsonObject(errorOrFields) : undefined,
      });
    });
  }

  /**
   * Records one language-model call as an `llm_decision` event — `model` and
   * `usage` as the event's own fields (the service prices the call from them
   * unless `estimatedCost` is given), and as before in `toolInput`/`toolOutput`
   * — and adds its tokens to the run's totals (sent with `end` unless `end` is
   * given its own).
   */
  llmCall(fields: LlmCallFields): void {
    this.guarded(() => {
      const flat = eventUsage({
        promptTokens: fields.promptTokens,
        completionTokens: fields.completionTokens,
        totalTokens: fields.totalTokens,
      });
      const usage: EventUsage | undefined =
        flat === undefined && fields.usage === undefined ? undefined : { ...flat, ...eventUsage(fields.usage) };
      const prompt = usage?.promptTokens;
      const completion = usage?.completionTokens;
      const total =
        usage?.totalTokens ??
        (prompt !== undefined || completion !== undefined ? (prompt ?? 0) + (completion ?? 0) : undefined);
      const output: Record<string, unknown> = {};
      if (prompt !== undefined) output.promptTokens = prompt;
      if (completion !== undefined) output.completionTokens = completion;
      if (total !== undefined) output.totalTokens = total;
      if (fields.durationMs !== undefined) output.durationMs = fields.durationMs;
      this.emit("llm_decision", {
        reasoning: optionalText(fields.reasoning),
        toolInput: toJsonObject({ ...fields.request, model: fields.model }),
        toolOutput: toJsonObject({ ...fields.response, ...output }),
        estimatedCost: fields.estimatedCost,
        model: fields.model,
        usage: usage !== undefined && Object.keys(usage).length > 0 ? usage : undefined,
        occurredAt: fields.occurredAt,
        durationMs: fields.durationMs,
      });
    });
  }

  /**
   * `fn` wrapped so that every call records a `tool_call` (input, output,
   * `occurredAt` at the call's start and `durationMs`) and, when it throws or
   * rejects, an `error` event too (at the failure); the result or error is
   * passed through unchanged, sync or async as `fn` is.
   */
  wrapTool<A extends unknown[], R>(toolName: string, fn: (...args: A) => R): (...args: A) => R {
    const run = this;
    return function trackedTool(this: unknown, ...args: A): R {
      const started = Date.now();
      let result: R;
      try {
        result = fn.apply(this, args);
      } catch (error) {
        run.recordToolOutcome(toolName, args, started, { error });
        throw error;
      }
      if (isPromiseLike(result)) {
        return Promise.resolve(result).then(
          (value) => {
            run.recordToolOutcome(toolName, args, started, { value });
            return value;
          },
          (error: unknown) => {
            run.recordToolOutcome(toolName, args, started, { error });
            throw error;
          },
        ) as R;
      }
      run.recordToolOutcome(toolName, args, started, { value: result });
      return result;
    };
  }

  /**
   * Ends the session. Duration, token totals and cost are filled in from the
   * run unless given; `status` follows `success`/`failureReason` unless given.
   * Resolves once queued (background mode) or sent (immediate mode); never rejects.
   * A second call is reported and ignored.
   */
  async end(fields: EndFields = {}): Promise<void> {
    try {
      if (this.ended) {
        this.host.report(new AtsUsageError(`Session ${this.id} was already ended`, this.id));
        return;
      }
      this.ended = true;
      await this.host.end(this, this.endBody(fields));
    } catch (error) {
      this.host.report(new AtsUsageError(`Could not end session ${this.id}: ${describeError(error)}`, this.id));
    }
  }

  private endBody(fields: EndFields): Record<string, unknown> {
    const failed =
      fields.status === "failed" ||
      (fields.status === undefined && (fields.success === false || fields.failureReason !== undefined));
    const body: Record<string, unknown> = {
      status: fields.status ?? (failed ? "failed" : "completed"),
      durationMs: fields.durationMs ?? Math.max(0, Date.now() - this.startedAtMs),
      completedAt: timestamp(fields.completedAt),
    };
    if (fields.success !== undefined) body.success = fields.success;
    const reason = optionalText(fields.failureReason);
    if (reason !== undefined) body.failureReason = reason;
    // The sum of the known costs is the session's cost only when the service priced none of its events.
    const cost = fields.estimatedCost ?? (this.cost > 0 && !this.serverPriced ? this.cost : undefined);
    if (cost !== undefined) body.estimatedCost = cost;
    if (fields.promptTokens !== undefined) body.promptTokens = fields.promptTokens;
    else if (this.hasTokens) body.promptTokens = this.promptTokens;
    if (fields.completionTokens !== undefined) body.completionTokens = fields.completionTokens;
    else if (this.hasTokens) body.completionTokens = this.completionTokens;
    if (fields.totalTokens !== undefined) body.totalTokens = fields.totalTokens;
    else if (this.hasTokens) body.totalTokens = this.totalTokens;
    if (fields.customMetrics !== undefined) body.customMetrics = fields.customMetrics;
    return body;
  }

  private recordToolOutcome(
    toolName: string,
    args: readonly unknown[],
    started: number,
    outcome: { value?: unknown; error?: unknown },
  ): void {
    this.guarded(() => {
      const durationMs = Math.max(0, Date.now() - started);
      const failed = "error" in outcome;
      const output = failed ? { error: outcome.error, durationMs } : { result: outcome.value, durationMs };
      // The call's start and how long it took: the event spans the call (the error event is its end).
      this.emit("tool_call", {
        toolName: optionalText(toolName),
        toolInput: toolInputOf(args),
        toolOutput: toJsonObject(output),
        occurredAt: new Date(started),
        durationMs,
      });
      if (failed) {
        this.emit("error", {
          toolName: optionalText(toolName),
          reasoning: optionalText(describeError(outcome.error)),
          toolOutput: toJsonObject({ error: outcome.error }),
        });
      }
    });
  }

  private emit(eventType: EventType, fields: EventFields): void {
    const cost = nonNegative(fields.estimatedCost);
    if (cost !== undefined) this.cost += cost;
    const { occurredAt, durationMs, model: givenModel, usage: givenUsage, ...rest } = fields;
    const model = eventModel(givenModel);
    const usage = eventUsage(givenUsage);
    if (usage !== undefined) this.addTokens(usage);
    if ((model !== undefined || usage !== undefined) && fields.estimatedCost === undefined) this.serverPriced = true;
    const event: TrackedEvent = { sessionId: this.id, eventType, occurredAt: timestamp(occurredAt) };
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) (event as unknown as Record<string, unknown>)[key] = value;
    }
    if (model !== undefined) event.model = model;
    if (usage !== undefined) event.usage = usage;
    const duration = eventDuration(durationMs);
    if (duration !== undefined) event.durationMs = duration;
    this.host.record(this, event);
  }

  /** Adds an event's usage to the run's totals (a missing total counts as prompt + completion). */
  private addTokens(usage: EventUsage): void {
    const { promptTokens: prompt, completionTokens: completion, totalTokens: total } = usage;
    if (prompt === undefined && completion === undefined && total === undefined) return;
    this.hasTokens = true;
    this.promptTokens += prompt ?? 0;
    this.completionTokens += completion ?? 0;
    this.totalTokens += total ?? (prompt ?? 0) + (completion ?? 0);
  }

  private guarded(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.host.report(
        new AtsUsageError(`Could not record an event of session ${this.id}: ${describeError(error)}`, this.id),
      );
    }
  }
}
