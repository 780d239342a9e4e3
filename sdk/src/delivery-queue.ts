/**
 * The outbox: session starts, events, scores and session ends waiting to be sent, in
 * the order the agent made them. Events travel in batches (by count and bytes);
 * a session's own items go one request at a time, in order — its start before
 * its events, its events before its end — while different sessions proceed in
 * parallel, up to `maxConcurrency` requests. A conversation's own scores have a
 * lane of their own, each sent once the conversation's runs have sent what was
 * queued for them before it. Memory is bounded: past
 * `maxQueueSize` queued events the oldest is dropped, counted and reported.
 */

import { retryDelayMs } from "./backoff.js";
import {
  type BatchResult,
  batchResults,
  deliveryFailure,
  refusedEventsError,
  sessionNotCreatedError,
} from "./delivery-reports.js";
import { AtsDeliveryError, AtsDroppedEventsError, type AtsError } from "./errors.js";
import { newIdempotencyKey } from "./ids.js";
import { isRetryableStatus } from "./retry-policy.js";
import { type Delivery, sleep, type Transport } from "./transport.js";

export interface QueueSettings {
  readonly maxBatchSize: number;
  /** Largest batch body (JSON bytes before compression). */
  readonly maxBatchBytes: number;
  readonly maxQueueSize: number;
  readonly maxConcurrency: number;
  readonly flushIntervalMs: number;
  /** Send as soon as something is queued instead of on the interval. */
  readonly immediate: boolean;
  readonly maxRetries: number;
  readonly backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number };
}

/** A place in the outbox: its own queue, sent strictly in order, one request at a time. */
interface LaneBase {
  state: "pending" | "created" | "failed";
  /** A request of this lane is in flight: its next item waits. */
  busy: boolean;
  /** The lane's waiting items (a dropped event leaves a hole); `head` is the first. */
  items: (QueueItem | undefined)[];
  head: number;
}

/** One session's place: its start, events, scores and end. */
export interface SessionLane extends LaneBase {
  readonly kind: "session";
  readonly sessionId: string;
  /** The conversation the session is a run of, when its start names one. */
  readonly conversationId: string | undefined;
}

/**
 * A conversation's own scores (it has no start to send): one at a time in the order given, each after what this
 * client queued for the conversation's runs before it ({@link ScoreItem.after}).
 */
export interface ConversationLane extends LaneBase {
  readonly kind: "conversation";
  readonly conversationId: string;
}

type Lane = SessionLane | ConversationLane;

/** Where a lane's run stood when a conversation's score was queued: its items up to `seq` go first. */
interface RunMark {
  readonly lane: SessionLane;
  readonly seq: number;
}

interface ItemBase {
  readonly seq: number;
  readonly lane: SessionLane;
}
interface CreateItem extends ItemBase {
  readonly kind: "create";
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string;
}
interface EventItem extends ItemBase {
  readonly kind: "event";
  readonly eventType: string;
  /** The event serialized once, when recorded. */
  readonly json: string;
  readonly bytes: number;
}
interface EndItem extends ItemBase {
  readonly kind: "end";
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string;
  readonly settled: () => void;
}
/**
 * A score of the lane's session or conversation: one request each (its id makes a retry a replacement), after the
 * session's start, or after the conversation's runs' items queued before it (`after`).
 */
interface ScoreItem {
  readonly kind: "score";
  readonly seq: number;
  readonly lane: Lane;
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string;
  readonly after: readonly RunMark[];
}
type QueueItem = CreateItem | EventItem | EndItem | ScoreItem;
/** The items sent one request each. */
type SingleItem = CreateItem | EndItem | ScoreItem;

type Work =
  | { readonly kind: "batch"; readonly items: EventItem[] }
  | { readonly kind: "single"; readonly item: SingleItem };

/** Counts for `stats()`. */
export interface QueueCounters {
  eventsQueued: number;
  eventsDelivered: number;
  eventsDropped: number;
  eventsFailed: number;
  sessionsCreated: number;
  sessionsFailed: number;
  sessionsEnded: number;
  scoresQueued: number;
  scoresDelivered: number;
  scoresFailed: number;
}

/** `{"events":[` + `]}`. */
const BATCH_ENVELOPE_BYTES = 13;

export class DeliveryQueue {
  readonly counters: QueueCounters = {
    eventsQueued: 0,
    eventsDelivered: 0,
    eventsDropped: 0,
    eventsFailed: 0,
    sessionsCreated: 0,
    sessionsFailed: 0,
    sessionsEnded: 0,
    scoresQueued: 0,
    scoresDelivered: 0,
    scoresFailed: 0,
  };

  /** Lanes with something waiting. */
  private readonly waiting = new Set<Lane>();
  private queuedEvents = 0;
  private readonly inFlight = new Set<{ readonly minSeq: number; readonly lanes: ReadonlySet<Lane> }>();
  /** The requests under way, each settled once its outcome is reported (shutdown waits for them: {@link halt}). */
  private readonly running = new Set<Promise<void>>();
  /** Set by {@link halt}: nothing new is sent. */
  private stopping = false;
  private lastSeq = 0;
  /** Partial batches of items up to this sequence number are sent now (interval elapsed, flush). */
  private sendThrough = 0;
  /** The last look found nothing to send and nothing has changed since. */
  private stalled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushWaiters: { readonly seq: number; readonly resolve: () => void }[] = [];
  private overflowToReport = 0;
  /** Lanes whose session start is not yet answered, by session id: a score of one of them waits behind the start. */
  private readonly startingLanes = new Map<string, SessionLane>();
  /** The lanes of conversations' own scores, by conversation id, while they hold or send one. */
  private readonly conversationLanes = new Map<string, ConversationLane>();

  constructor(
    private readonly settings: QueueSettings,
    private readonly transport: Transport,
    private readonly report: (error: AtsError) => void,
    private readonly stop: AbortSignal,
    private readonly armTimer: (callback: () => void, ms: number) => ReturnType<typeof setTimeout>,
  ) {}

  /** Events waiting (not yet in a request). */
  get size(): number {
    return this.queuedEvents;
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Queues a session's start and returns its lane, which its events and end then join. */
  startSession(sessionId: string, body: Record<string, unknown>): SessionLane {
    const conversationId = typeof body.conversationId === "string" ? body.conversationId : undefined;
    const lane: SessionLane = {
      kind: "session",
      sessionId,
      conversationId,
      state: "pending",
      busy: false,
      items: [],
      head: 0,
    };
    this.startingLanes.set(sessionId, lane);
    this.append({ kind: "create", seq: ++this.lastSeq, lane, body, idempotencyKey: newIdempotencyKey() });
    this.stalled = false;
    this.pump();
    return lane;
  }

  addEvent(lane: SessionLane, eventType: string, json: string, bytes: number): void {
    this.counters.eventsQueued++;
    if (lane.state === "failed") {
      this.counters.eventsFailed++;
      return;
    }
    this.append({ kind: "event", seq: ++this.lastSeq, lane, eventType, json, bytes });
    this.queuedEvents++;
    if (this.queuedEvents > this.settings.maxQueueSize) this.dropOldestEvent();
    if (lane.state === "created" && !lane.busy) this.stalled = false;
    if (this.settings.immediate) this.sendThrough = this.lastSeq;
    this.pump();
  }

  /**
   * Queues a score of a session: behind the session's start when this client is still starting it (`lane`, or the
   * lane found by id), else on its own (a session started elsewhere, or already created).
   */
  addScore(sessionId: string, body: Record<string, unknown>, lane?: SessionLane): void {
    this.counters.scoresQueued++;
    const into = lane ?? this.startingLanes.get(sessionId) ?? this.createdLane(sessionId);
    if (into.state === "failed") {
      this.counters.scoresFailed++;
      return;
    }
    const item: ScoreItem = {
      kind: "score",
      seq: ++this.lastSeq,
      lane: into,
      body,
      idempotencyKey: newIdempotencyKey(),
      after: [],
    };
    this.append(item);
    if (!into.busy) this.stalled = false;
    this.pump();
  }

  /**
   * Queues a score of a conversation in the conversation's own lane (after its earlier scores), to be sent once
   * every item this client queued before it for the conversation's runs is delivered or given up: their starts
   * create the conversation, which the service must know before it takes a score of it.
   */
  addConversationScore(conversationId: string, body: Record<string, unknown>): void {
    this.counters.scoresQueued++;
    let lane = this.conversationLanes.get(conversationId);
    if (lane === undefined) {
      lane = { kind: "conversation", conversationId, state: "created", busy: false, items: [], head: 0 };
      this.conversationLanes.set(conversationId, lane);
    }
    const item: ScoreItem = {
      kind: "score",
      seq: ++this.lastSeq,
      lane,
      body,
      idempotencyKey: newIdempotencyKey(),
      after: this.runsOf(conversationId, this.lastSeq),
    };
    this.append(item);
    if (!lane.busy) this.stalled = false;
    this.pump();
  }

  /** The conversation's runs with something waiting or in flight, each marked at `seq`. */
  private runsOf(conversationId: string, seq: number): RunMark[] {
    const lanes = new Set<Lane>(this.waiting);
    for (const work of this.inFlight) for (const lane of work.lanes) lanes.add(lane);
    const marks: RunMark[] = [];
    for (const lane of lanes) {
      if (lane.kind === "session" && lane.conversationId === conversationId) marks.push({ lane, seq });
    }
    return marks;
  }

  /** Whether every run a conversation's score waits for has delivered (or given up) its items up to the mark. */
  private runsSettled(item: ScoreItem): boolean {
    return item.after.every(({ lane, seq }) => {
      if (lane.busy) return false;
      const first = this.firstOf(lane);
      return first === undefined || first.seq > seq;
    });
  }

  /** A lane of a session that exists already (no start of its own to send). */
  private createdLane(sessionId: string): SessionLane {
    return {
      kind: "session",
      sessionId,
      conversationId: undefined,
      state: "created",
      busy: false,
      items: [],
      head: 0,
    };
  }

  /** Resolves once the end was sent (or given up); callers in background mode need not wait. */
  endSession(lane: SessionLane, body: Record<string, unknown>): Promise<void> {
    return new Promise((settled) => {
      if (lane.state === "failed") return settled();
      this.append({ kind: "end", seq: ++this.lastSeq, lane, body, idempotencyKey: newIdempotencyKey(), settled });
      if (!lane.busy) this.stalled = false;
      this.pump();
    });
  }

  /** Resolves when everything queued before the call has been delivered or given up. */
  flush(): Promise<void> {
    const seq = this.lastSeq;
    if (this.oldestOutstandingSeq() > seq) return Promise.resolve();
    return new Promise((resolve) => {
      this.flushWaiters.push({ seq, resolve });
      this.sendThrough = Math.max(this.sendThrough, seq);
      this.stalled = false;
      this.pump();
    });
  }

  /**
   * At shutdown's deadline, once its signal has aborted the requests under way: sends nothing more and resolves
   * when each of those has reported how it ended — a session start stopped by shutdown says where it went and the
   * last error (a dead URL's `ECONNREFUSED`) — before {@link abandon} reports what was never sent.
   */
  async halt(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running]);
  }

  /** After shutdown's deadline: reports what is still queued as lost and releases every waiter. */
  abandon(): void {
    let lost = 0;
    const scoresFailedBefore = this.counters.scoresFailed;
    for (const lane of [...this.waiting]) lost += this.purge(lane);
    const lostScores = this.counters.scoresFailed - scoresFailedBefore;
    if (lostScores > 0) {
      this.report(
        new AtsDeliveryError("shutdown", `${lostScores} scores were still queued when shutdown's time ran out`, {
          operation: "score",
        }),
      );
    }
    this.queuedEvents = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (lost > 0) {
      this.counters.eventsFailed += lost;
      this.report(
        new AtsDeliveryError("shutdown", `${lost} events were still queued when shutdown's time ran out`, {
          operation: "recordEvents",
          lostEvents: lost,
        }),
      );
    }
    this.settleFlushWaiters();
  }

  private append(item: QueueItem): void {
    item.lane.items.push(item);
    this.waiting.add(item.lane);
  }

  /** The lane's first waiting item, skipping holes; the lane leaves `waiting` when it has none. */
  private firstOf(lane: Lane): QueueItem | undefined {
    while (lane.head < lane.items.length && lane.items[lane.head] === undefined) lane.head++;
    const first = lane.items[lane.head];
    if (first === undefined) {
      lane.items = [];
      lane.head = 0;
      this.waiting.delete(lane);
      if (lane.kind === "conversation" && !lane.busy) this.conversationLanes.delete(lane.conversationId);
    } else if (lane.head > 1024 && lane.head * 2 > lane.items.length) {
      lane.items = lane.items.slice(lane.head);
      lane.head = 0;
    }
    return first;
  }

  /** Removes every waiting item of a lane (ends are settled); returns how many were events. */
  private purge(lane: Lane): number {
    let events = 0;
    for (let i = lane.head; i < lane.items.length; i++) {
      const item = lane.items[i];
      if (item?.kind === "event") events++;
      if (item?.kind === "score") this.counters.scoresFailed++;
      if (item?.kind === "end") item.settled();
    }
    lane.items = [];
    lane.head = 0;
    this.waiting.delete(lane);
    if (lane.kind === "conversation") this.conversationLanes.delete(lane.conversationId);
    return events;
  }

  private dropOldestEvent(): void {
    let oldest: { lane: Lane; index: number; seq: number } | undefined;
    for (const lane of this.waiting) {
      for (let i = lane.head; i < lane.items.length; i++) {
        const item = lane.items[i];
        if (item?.kind !== "event") continue;
        if (oldest === undefined || item.seq < oldest.seq) oldest = { lane, index: i, seq: item.seq };
        break;
      }
    }
    if (oldest === undefined) return;
    oldest.lane.items[oldest.index] = undefined;
    this.firstOf(oldest.lane);
    this.queuedEvents--;
    this.counters.eventsDropped++;
    if (this.overflowToReport++ === 0) queueMicrotask(() => this.reportOverflow());
  }

  private reportOverflow(): void {
    const dropped = this.overflowToReport;
    this.overflowToReport = 0;
    this.report(
      new AtsDroppedEventsError(
        "queue_overflow",
        `${dropped} events dropped: more than maxQueueSize (${this.settings.maxQueueSize}) were waiting to be sent`,
        { lostEvents: dropped },
      ),
    );
  }

  private pump(): void {
    while (!this.stopping && !this.stalled && this.inFlight.size < this.settings.maxConcurrency) {
      const work = this.takeWork();
      if (work === undefined) {
        this.stalled = true;
        break;
      }
      this.dispatch(work);
    }
    this.settleFlushWaiters();
    this.armIntervalTimer();
  }

  private dispatch(work: Work): void {
    const lanes: ReadonlySet<Lane> =
      work.kind === "batch" ? new Set(work.items.map((item) => item.lane)) : new Set([work.item.lane]);
    for (const lane of lanes) lane.busy = true;
    const token = {
      minSeq: work.kind === "batch" ? Math.min(...work.items.map((item) => item.seq)) : work.item.seq,
      lanes,
    };
    this.inFlight.add(token);
    const running = work.kind === "batch" ? this.sendEvents(work.items) : this.sendSingle(work.item);
    const reported = running
      .catch((error: unknown) => {
        // A defect of the client itself: report it rather than throw into the agent.
        this.report(
          new AtsDeliveryError("rejected", `Internal client error: ${String(error)}`, { operation: "deliver" }),
        );
      })
      .finally(() => {
        for (const lane of lanes) {
          lane.busy = false;
          this.firstOf(lane);
        }
        this.inFlight.delete(token);
        this.running.delete(reported);
        this.stalled = false;
        this.pump();
      });
    this.running.add(reported);
  }

  /**
   * The next request. Idle sessions are taken oldest first (by their first
   * waiting item); a batch takes the first one's leading events (as many as
   * fit) and then only sessions whose leading events all fit, so batches touch
   * few sessions (one read and few transactions each for the service) and
   * leave the other sessions free for the next concurrent request. A batch goes when full, or when its oldest event
   * is due (interval, flush, immediate mode); otherwise the oldest session
   * start or end waiting at the head of an idle session goes.
   */
  private takeWork(): Work | undefined {
    const ready: { lane: Lane; first: QueueItem }[] = [];
    for (const lane of [...this.waiting]) {
      if (lane.busy) continue;
      const first = this.firstOf(lane);
      // A conversation's score waits until the conversation's runs queued before it are sent.
      if (first?.kind === "score" && !this.runsSettled(first)) continue;
      if (first !== undefined) ready.push({ lane, first });
    }
    ready.sort((a, b) => a.first.seq - b.first.seq);
    const batch: EventItem[] = [];
    const takenUpTo = new Map<SessionLane, number>();
    let bytes = BATCH_ENVELOPE_BYTES;
    let full = false;
    let control: Lane | undefined;
    for (const { lane, first } of ready) {
      if (first.kind !== "event") {
        control ??= lane;
        continue;
      }
      if (lane.kind !== "session" || lane.state !== "created") continue;
      if (batch.length > 0 && !this.fitsWhole(lane, batch.length, bytes)) {
        // Another session joins a batch only with all its waiting events: a session split over two
        // batches would sit out the next concurrent request.
        full = true;
        break;
      }
      let index = lane.head;
      for (; index < lane.items.length; index++) {
        const item = lane.items[index];
        if (item === undefined) continue;
        if (item.kind !== "event") break;
        if (
          batch.length >= this.settings.maxBatchSize ||
          (batch.length > 0 && bytes + item.bytes + 1 > this.settings.maxBatchBytes)
        ) {
          full = true;
          break;
        }
        batch.push(item);
        bytes += item.bytes + 1;
      }
      takenUpTo.set(lane, index);
      if (full || batch.length >= this.settings.maxBatchSize) {
        full = true;
        break;
      }
    }
    const due = batch.some((item) => item.seq <= this.sendThrough);
    if (batch.length > 0 && (full || due)) {
      for (const [lane, index] of takenUpTo) {
        for (let i = lane.head; i < index; i++) lane.items[i] = undefined;
        lane.head = index;
      }
      this.queuedEvents -= batch.length;
      return { kind: "batch", items: batch };
    }
    if (control !== undefined) {
      const item = control.items[control.head] as SingleItem;
      control.items[control.head] = undefined;
      control.head++;
      return { kind: "single", item };
    }
    return undefined;
  }

  /** Whether all the events at the front of `lane` fit beside `count` events of `bytes` bytes. */
  private fitsWhole(lane: Lane, count: number, bytes: number): boolean {
    let total = count;
    let size = bytes;
    for (let i = lane.head; i < lane.items.length; i++) {
      const item = lane.items[i];
      if (item === undefined) continue;
      if (item.kind !== "event") break;
      total++;
      size += item.bytes + 1;
      if (total > this.settings.maxBatchSize || size > this.settings.maxBatchBytes) return false;
    }
    return true;
  }

  private async sendSingle(item: SingleItem): Promise<void> {
    if (item.kind === "score") return this.sendScore(item);
    const creating = item.kind === "create";
    const operation = creating ? "createSession" : "endSession";
    const delivery = await this.transport.deliver(
      creating
        ? {
            method: "POST",
            path: "/api/sdk/sessions",
            json: JSON.stringify(item.body),
            idempotencyKey: item.idempotencyKey,
          }
        : {
            method: "PATCH",
            path: `/api/sdk/sessions/${encodeURIComponent(item.lane.sessionId)}`,
            json: JSON.stringify(item.body),
            idempotencyKey: item.idempotencyKey,
          },
      this.stop,
    );
    const ok = delivery.kind === "answered" && delivery.answer.status >= 200 && delivery.answer.status < 300;
    if (creating) {
      this.startingLanes.delete(item.lane.sessionId);
      if (ok) {
        item.lane.state = "created";
        this.counters.sessionsCreated++;
      } else {
        this.failSession(item, delivery);
      }
      return;
    }
    try {
      if (ok) this.counters.sessionsEnded++;
      else this.report(deliveryFailure(delivery, operation, item.lane.sessionId, 0));
    } finally {
      item.settled();
    }
  }

  /** One score (a retry of it replaces, never adds: the body carries its id); a refusal is reported, never thrown. */
  private async sendScore(item: ScoreItem): Promise<void> {
    const delivery = await this.transport.deliver(
      { method: "POST", path: "/api/sdk/scores", json: JSON.stringify(item.body), idempotencyKey: item.idempotencyKey },
      this.stop,
    );
    if (delivery.kind === "answered" && delivery.answer.status >= 200 && delivery.answer.status < 300) {
      this.counters.scoresDelivered++;
      return;
    }
    this.counters.scoresFailed++;
    const { lane } = item;
    this.report(
      lane.kind === "session"
        ? deliveryFailure(delivery, "score", lane.sessionId, 0)
        : deliveryFailure(delivery, "score", undefined, 0, lane.conversationId),
    );
  }

  private failSession(item: CreateItem, delivery: Delivery): void {
    item.lane.state = "failed";
    this.counters.sessionsFailed++;
    const lost = this.purge(item.lane);
    this.queuedEvents -= lost;
    this.counters.eventsFailed += lost;
    this.report(
      sessionNotCreatedError(
        item.lane.sessionId,
        deliveryFailure(delivery, "createSession", item.lane.sessionId, lost),
      ),
    );
  }

  /**
   * One batch request (a fresh Idempotency-Key, the events' own keys), then the
   * events the service answered with a retryable status again, until each is
   * stored, refused or out of retries. A 413 splits the batch.
   */
  private async sendEvents(items: EventItem[]): Promise<void> {
    let pending = items;
    for (let retry = 0; pending.length > 0; retry++) {
      const delivery = await this.transport.deliver(
        {
          method: "POST",
          path: "/api/sdk/events/batch",
          json: `{"events":[${pending.map((item) => item.json).join(",")}]}`,
          idempotencyKey: newIdempotencyKey(),
        },
        this.stop,
      );
      if (delivery.kind === "gave_up")
        return this.lose(pending, deliveryFailure(delivery, "recordEvents", undefined, pending.length));
      const { status, body } = delivery.answer;
      if (status === 413 && pending.length > 1) {
        const half = Math.ceil(pending.length / 2);
        await this.sendEvents(pending.slice(0, half));
        await this.sendEvents(pending.slice(half));
        return;
      }
      const results = status === 200 ? batchResults(body, pending.length) : undefined;
      if (results === undefined) {
        return this.lose(pending, deliveryFailure(delivery, "recordEvents", undefined, pending.length));
      }
      const again: EventItem[] = [];
      const refused: { item: EventItem; result: BatchResult }[] = [];
      pending.forEach((item, index) => {
        const result = results[index] as BatchResult;
        if (result.status >= 200 && result.status < 300) this.counters.eventsDelivered++;
        else if (isRetryableStatus(result.status, result.error)) again.push(item);
        else refused.push({ item, result });
      });
      if (refused.length > 0) this.reportRefused(refused);
      if (again.length > 0 && (retry >= this.settings.maxRetries || this.stop.aborted)) {
        const reason = this.stop.aborted ? "shutdown" : "retries_exhausted";
        return this.lose(
          again,
          new AtsDeliveryError(reason, `${again.length} events still failed after ${retry + 1} batch attempts`, {
            operation: "recordEvents",
            status: results[pending.indexOf(again[0] as EventItem)]?.status,
            attempts: retry + 1,
            lostEvents: again.length,
          }),
        );
      }
      if (again.length > 0) await sleep(retryDelayMs(retry, this.settings.backoff, undefined), this.stop);
      pending = again;
    }
  }

  private reportRefused(refused: { item: EventItem; result: BatchResult }[]): void {
    this.counters.eventsFailed += refused.length;
    this.report(
      refusedEventsError(
        refused.map(({ item, result }) => ({
          sessionId: item.lane.sessionId,
          eventType: item.eventType,
          status: result.status,
          error: result.error,
        })),
      ),
    );
  }

  private lose(items: EventItem[], error: AtsDeliveryError): void {
    this.counters.eventsFailed += items.length;
    this.report(error);
  }

  private oldestOutstandingSeq(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const lane of [...this.waiting]) {
      const first = this.firstOf(lane);
      if (first !== undefined) oldest = Math.min(oldest, first.seq);
    }
    for (const work of this.inFlight) oldest = Math.min(oldest, work.minSeq);
    return oldest;
  }

  private settleFlushWaiters(): void {
    if (this.flushWaiters.length === 0) return;
    const oldest = this.oldestOutstandingSeq();
    for (let i = this.flushWaiters.length - 1; i >= 0; i--) {
      const waiter = this.flushWaiters[i];
      if (waiter !== undefined && waiter.seq < oldest) {
        this.flushWaiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  private armIntervalTimer(): void {
    if (this.timer !== undefined || this.settings.immediate || this.waiting.size === 0) return;
    this.timer = this.armTimer(() => {
      this.timer = undefined;
      this.sendThrough = this.lastSeq;
      this.stalled = false;
      this.pump();
    }, this.settings.flushIntervalMs);
  }
}
