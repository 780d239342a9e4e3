/**
 * The client: starts runs, queues their events and delivers them to the
 * service in batches, with retries that never duplicate and a bounded queue
 * that never fails silently.
 */
import { DEFAULT_BACKOFF } from "./backoff.js";
import { type AgentTrackerOptions, type ResolvedOptions, resolveOptions } from "./config.js";
import { contextValue, runInContext } from "./context.js";
import { DeliveryQueue, type SessionLane } from "./delivery-queue.js";
import { AtsDeliveryError, AtsDroppedEventsError, type AtsError, AtsUsageError } from "./errors.js";
import type { SessionFields, TrackedEvent } from "./event-types.js";
import { type FeedbackToken, type FeedbackTokenOptions, feedbackTokenBody, feedbackTokenOf } from "./feedback-token.js";
import { newEventId, newIdempotencyKey, newScoreId, newSessionId } from "./ids.js";
import { toJsonObject, utf8Length } from "./json-value.js";
import { onProcessIdle, unrefTimer } from "./platform.js";
import { Run, type RunHost } from "./run.js";
import { isSampled } from "./sampling.js";
import {
  type ConversationScoreFields,
  conversationScoreBody,
  conversationScoreProblem,
  type ScoreFields,
  scoreBody,
  scoreProblem,
} from "./score-types.js";
import { Transport } from "./transport.js";

/** The service takes request bodies up to 5 MiB on the event routes: one event must fit one batch. */
export const MAX_EVENT_BYTES = 5 * 1024 * 1024 - 64;
/** Batches stay under 4 MiB of JSON, well inside the 5 MiB body (and Lambda's 6 MB event once encoded). */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
/** Bodies above 1 KiB are sent gzip-compressed. */
const COMPRESS_ABOVE_BYTES = 1024;
/** The service's limit on `failureReason`; reasons the client builds from exceptions are cut to it. */
const FAILURE_REASON_LENGTH = 4096;

/** What the client has done so far; `ats.stats()`. */
export interface TrackerStats {
  /** Events the agent recorded on sampled runs (after masking). */
  readonly eventsRecorded: number;
  /** Events the service confirmed stored (201, or an idempotent replay of one). */
  readonly eventsDelivered: number;
  /** Events dropped because the queue was full. */
  readonly eventsDropped: number;
  /** Events refused by the service, given up after retries, too large, or lost at shutdown. */
  readonly eventsFailed: number;
  /** Events of runs left out by `sampleRate`. */
  readonly eventsSampledOut: number;
  /** Events `mask` returned `null` for. */
  readonly eventsMasked: number;
  /** Events waiting to be sent. */
  readonly queued: number;
  readonly requestsInFlight: number;
  readonly sessionsStarted: number;
  readonly sessionsCreated: number;
  readonly sessionsFailed: number;
  readonly sessionsEnded: number;
  /** Scores queued (of sampled runs, of `score(sessionId, …)` and of `scoreConversation(…)`). */
  readonly scoresRecorded: number;
  /** Scores the service confirmed stored. */
  readonly scoresDelivered: number;
  /**
   * Scores refused (a conversation's included), given up after retries, of a session that could not be started, or
   * lost at shutdown.
   */
  readonly scoresFailed: number;
  readonly requests: number;
  readonly retries: number;
  /** Request body bytes on the wire (after gzip). */
  readonly bytesSent: number;
  /** The same bodies uncompressed. */
  readonly bytesBeforeCompression: number;
}

/** The run whose `trace` (or `runWith`) callback is executing, through `await`s; `undefined` outside one or in a browser. */
export function currentRun(): Run | undefined {
  const value = contextValue();
  return value instanceof Run ? value : undefined;
}

function failureReasonOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length <= FAILURE_REASON_LENGTH ? text : `${text.slice(0, FAILURE_REASON_LENGTH - 1)}…`;
}

function fieldSizes(event: TrackedEvent): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const [field, value] of Object.entries(event)) {
    if (value !== undefined) sizes[field] = utf8Length(JSON.stringify(value) ?? "");
  }
  return sizes;
}

export class AgentTracker {
  private readonly options: ResolvedOptions;
  private readonly transport: Transport;
  private readonly queue: DeliveryQueue;
  private readonly stopController = new AbortController();
  private readonly lanes = new WeakMap<Run, SessionLane>();
  private readonly host: RunHost;
  private readonly detachIdleHook: () => void;
  private closed = false;
  private shutdownResult: Promise<TrackerStats> | undefined;
  private sessionsStarted = 0;
  private eventsSampledOut = 0;
  private eventsMasked = 0;
  private eventsTooLarge = 0;

  /**
   * @throws AtsConfigurationError when there is no API key or base URL (in the
   * options or `ATS_API_KEY` / `ATS_BASE_URL`), or an option is out of range.
   */
  constructor(options: AgentTrackerOptions = {}) {
    this.options = resolveOptions(options);
    this.transport = new Transport({
      baseUrl: this.options.baseUrl,
      apiKey: this.options.apiKey,
      maxRetries: this.options.maxRetries,
      backoff: DEFAULT_BACKOFF,
      requestTimeoutMs: this.options.requestTimeoutMs,
      compressAboveBytes: COMPRESS_ABOVE_BYTES,
      fetch: this.options.fetch,
    });
    this.queue = new DeliveryQueue(
      {
        maxBatchSize: this.options.maxBatchSize,
        maxBatchBytes: MAX_BATCH_BYTES,
        maxQueueSize: this.options.maxQueueSize,
        maxConcurrency: this.options.maxConcurrency,
        flushIntervalMs: this.options.flushIntervalMs,
        immediate: this.options.immediate,
        maxRetries: this.options.maxRetries,
        backoff: DEFAULT_BACKOFF,
      },
      this.transport,
      (error) => this.report(error),
      this.stopController.signal,
      (callback, ms) => {
        const timer = setTimeout(callback, ms);
        unrefTimer(timer);
        return timer;
      },
    );
    this.host = {
      record: (run, event) => this.record(run, event),
      end: (run, body) => this.endRun(run, body),
      score: (run, fields) => (run.sampled ? this.queueScore(run.id, fields, this.lanes.get(run)) : undefined),
      report: (error) => this.report(error),
    };
    // A script that simply returns still sends what it recorded: Node's loop
    // empties, `beforeExit` fires, the flush keeps it alive until done.
    this.detachIdleHook = onProcessIdle(() => {
      if (this.queue.size > 0 || this.queue.requestsInFlight > 0) void this.flush();
    });
  }

  /**
   * Starts a session and returns its run at once; the session is created in
   * the background (and retried while the service is unreachable), and the
   * run's events follow it.
   */
  async startSession(fields: SessionFields): Promise<Run> {
    const startedAtMs = startTime(fields.startedAt);
    const id = newSessionId(startedAtMs);
    const sampled = !this.closed && isSampled(id, this.options.sampleRate);
    const run = new Run(this.host, {
      id,
      name: String(fields.name),
      agentName: String(fields.agentName),
      userId: String(fields.userId),
      sampled,
      startedAtMs,
    });
    if (this.closed) {
      this.report(new AtsUsageError(`startSession after shutdown: session ${id} is not recorded`, id));
      return run;
    }
    this.sessionsStarted++;
    if (!sampled) return run;
    const body: Record<string, unknown> = {
      id,
      name: fields.name,
      agentName: fields.agentName,
      userId: fields.userId,
      startedAt: new Date(startedAtMs).toISOString(),
    };
    if (fields.metadata !== undefined) body.metadata = toJsonObject(fields.metadata);
    if (fields.conversationId !== undefined) body.conversationId = String(fields.conversationId);
    this.lanes.set(run, this.queue.startSession(id, body));
    return run;
  }

  /**
   * Runs `fn` as one session: `currentRun()` (and `wrapTool`) inside it find
   * the run, through every `await`. Ends the session `completed`, or `failed`
   * with the error as `failureReason` when `fn` throws — and re-throws it. In
   * immediate mode the session's delivery is awaited before returning.
   */
  async trace<T>(fields: SessionFields, fn: (run: Run) => T | Promise<T>): Promise<T> {
    const run = await this.startSession(fields);
    let result: T;
    try {
      result = await runInContext(run, () => fn(run));
    } catch (error) {
      if (!run.isEnded) await run.end({ status: "failed", success: false, failureReason: failureReasonOf(error) });
      throw error;
    }
    if (!run.isEnded) await run.end({ status: "completed" });
    return result;
  }

  /**
   * Records a score of any session — one this client started, or one started elsewhere (an evaluator judging runs
   * after the fact): sent in the background with retries, after the session's start when this client is still
   * sending it. Returns the score's id (the `id` given, or one minted; give it again to change the score), or
   * `undefined` when the score was not queued (the problem goes to `onError`).
   */
  score(sessionId: string, fields: ScoreFields): string | undefined {
    if (typeof sessionId !== "string" || sessionId === "") {
      this.report(new AtsUsageError("score needs the id of the session it judges"));
      return undefined;
    }
    return this.queueScore(sessionId, fields, undefined);
  }

  /**
   * Records a score of a whole conversation (the runs whose `conversationId` is this one): "resolved: true" for the
   * chat rather than for one turn. Sent in the background with retries, after everything this client queued before
   * it for the conversation's runs (their starts create the conversation: the service refuses a score of one it does
   * not know with a 404, reported, not retried). Returns the score's id (the `id` given, or one minted; give it again
   * to change the score), or `undefined` when the score was not queued (the problem goes to `onError`).
   */
  scoreConversation(conversationId: string, fields: ConversationScoreFields): string | undefined {
    if (typeof conversationId !== "string" || conversationId === "") {
      this.report(new AtsUsageError("scoreConversation needs the id of the conversation it judges"));
      return undefined;
    }
    if (this.closed) {
      this.report(
        new AtsUsageError(
          `A score of conversation ${conversationId} was recorded after shutdown and is not sent`,
          undefined,
          conversationId,
        ),
      );
      return undefined;
    }
    const problem = conversationScoreProblem(fields);
    if (problem !== undefined) {
      this.report(new AtsUsageError(`${problem}; the score is not sent`, undefined, conversationId));
      return undefined;
    }
    const id = fields.id ?? newScoreId();
    this.queue.addConversationScore(conversationId, conversationScoreBody(conversationId, id, fields));
    return id;
  }

  private queueScore(sessionId: string, fields: ScoreFields, lane: SessionLane | undefined): string | undefined {
    if (this.closed) {
      this.report(
        new AtsUsageError(`A score of session ${sessionId} was recorded after shutdown and is not sent`, sessionId),
      );
      return undefined;
    }
    const problem = scoreProblem(fields);
    if (problem !== undefined) {
      this.report(new AtsUsageError(`${problem}; the score is not sent`, sessionId));
      return undefined;
    }
    const id = fields.id ?? newScoreId();
    this.queue.addScore(sessionId, scoreBody(sessionId, id, fields), lane);
    return id;
  }

  /**
   * Mints an end user's feedback token for a session (and optionally one event of it): a direct request to
   * `POST /api/sdk/feedback-tokens` (retried like every request, never queued), answered with the token to hand to
   * the browser. Needs a key with `scores:write`. Throws `AtsDeliveryError` when the service refuses (unknown
   * session: 404, another tenant's: 403, bad options: 400) or cannot be reached.
   */
  async feedbackToken(sessionId: string, options: FeedbackTokenOptions = {}): Promise<FeedbackToken> {
    const delivery = await this.transport.deliver(
      {
        method: "POST",
        path: "/api/sdk/feedback-tokens",
        json: JSON.stringify(feedbackTokenBody(sessionId, options)),
        idempotencyKey: newIdempotencyKey(),
      },
      this.stopController.signal,
    );
    const token =
      delivery.kind === "answered" && delivery.answer.status === 201
        ? feedbackTokenOf(delivery.answer.body)
        : undefined;
    if (token !== undefined) return token;
    const answer = delivery.kind === "answered" ? delivery.answer : delivery.lastAnswer;
    const message = answerMessage(answer?.body) ?? (delivery.kind === "gave_up" ? delivery.lastError : undefined);
    throw new AtsDeliveryError(
      delivery.kind === "answered" ? "rejected" : "retries_exhausted",
      `No feedback token for session ${sessionId}${answer === undefined ? "" : ` (${answer.status})`}: ${message ?? "no answer"}`,
      {
        operation: "feedbackToken",
        status: answer?.status,
        body: answer?.body,
        attempts: delivery.attempts,
        sessionId,
      },
    );
  }

  /** Calls `fn` with `run` as the current run (for runs started with `startSession`). */
  runWith<T>(run: Run, fn: () => T): T {
    return runInContext(run, fn);
  }

  /** Resolves when everything recorded before the call has been delivered, refused or given up. Never rejects. */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /**
   * Sends what is queued, waiting at most `timeoutMs` (default 10 s); what is
   * still unsent then is reported as lost. Later calls on the tracker are
   * reported and ignored. Resolves with the final stats; never rejects.
   */
  shutdown(options: { timeoutMs?: number } = {}): Promise<TrackerStats> {
    this.shutdownResult ??= this.closeDown(options.timeoutMs ?? 10_000);
    return this.shutdownResult;
  }

  /** Counters of what was recorded, sent, dropped and failed, and the bytes on the wire. */
  stats(): TrackerStats {
    const queue = this.queue.counters;
    const wire = this.transport.counters;
    return {
      eventsRecorded: queue.eventsQueued + this.eventsTooLarge,
      eventsDelivered: queue.eventsDelivered,
      eventsDropped: queue.eventsDropped,
      eventsFailed: queue.eventsFailed + this.eventsTooLarge,
      eventsSampledOut: this.eventsSampledOut,
      eventsMasked: this.eventsMasked,
      queued: this.queue.size,
      requestsInFlight: this.queue.requestsInFlight,
      sessionsStarted: this.sessionsStarted,
      sessionsCreated: queue.sessionsCreated,
      sessionsFailed: queue.sessionsFailed,
      sessionsEnded: queue.sessionsEnded,
      scoresRecorded: queue.scoresQueued,
      scoresDelivered: queue.scoresDelivered,
      scoresFailed: queue.scoresFailed,
      requests: wire.requests,
      retries: wire.retries,
      bytesSent: wire.bytesSent,
      bytesBeforeCompression: wire.bytesBeforeCompression,
    };
  }

  private async closeDown(timeoutMs: number): Promise<TrackerStats> {
    this.closed = true;
    this.detachIdleHook();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([this.queue.flush().then(() => "flushed" as const), deadline]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      this.stopController.abort();
      await this.queue.halt();
      this.queue.abandon();
    }
    return this.stats();
  }

  private record(run: Run, event: TrackedEvent): void {
    if (!run.sampled) {
      this.eventsSampledOut++;
      return;
    }
    if (this.closed) {
      this.report(
        new AtsUsageError(`An event of session ${run.id} was recorded after shutdown and is not sent`, run.id),
      );
      return;
    }
    const lane = this.lanes.get(run);
    if (lane === undefined) return;
    let masked: TrackedEvent | null | undefined = event;
    if (this.options.mask !== undefined) {
      try {
        masked = this.options.mask(event);
      } catch (error) {
        // Never send what the mask was meant to redact.
        this.eventsMasked++;
        this.report(
          new AtsUsageError(`mask threw (${String(error)}); the event was dropped, not sent unmasked`, run.id),
        );
        return;
      }
      if (masked === null || masked === undefined) {
        this.eventsMasked++;
        return;
      }
    }
    const json = JSON.stringify({
      ...masked,
      sessionId: run.id,
      eventType: event.eventType,
      // The event's own id: every retry names the same event, and ids minted in order keep the timeline's order.
      id: newEventId(),
    });
    const bytes = utf8Length(json);
    if (bytes > MAX_EVENT_BYTES) {
      this.eventsTooLarge++;
      this.report(
        new AtsDroppedEventsError(
          "event_too_large",
          `A ${event.eventType} event of session ${run.id} is ${bytes} bytes of JSON, over the service's ${MAX_EVENT_BYTES}; it was not sent (nothing is cut silently)`,
          {
            lostEvents: 1,
            sessionId: run.id,
            sizes: { eventBytes: bytes, limitBytes: MAX_EVENT_BYTES, fields: fieldSizes(masked) },
          },
        ),
      );
      return;
    }
    this.queue.addEvent(lane, event.eventType, json, bytes);
  }

  private async endRun(run: Run, body: Record<string, unknown>): Promise<void> {
    const lane = this.lanes.get(run);
    if (!run.sampled || lane === undefined) return;
    if (this.closed) {
      this.report(new AtsUsageError(`Session ${run.id} was ended after shutdown; the end is not sent`, run.id));
      return;
    }
    const sent = this.queue.endSession(lane, body);
    if (this.options.immediate) await sent;
  }

  private report(error: AtsError): void {
    try {
      this.options.onError(error);
    } catch {
      // onError is the agent's code; its failure must not become ours.
    }
  }
}

function startTime(startedAt: Date | string | undefined): number {
  if (startedAt === undefined) return Date.now();
  const time = startedAt instanceof Date ? startedAt.getTime() : Date.parse(startedAt);
  return Number.isFinite(time) ? time : Date.now();
}

/** The `message` of the service's JSON error body, when it has one. */
function answerMessage(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const message = (body as Record<string, unknown>).message;
  return typeof message === "string" ? message : undefined;
}
