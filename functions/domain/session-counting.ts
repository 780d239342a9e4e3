/**
 * Derived data of a session, counted from the table's change stream: what a
 * run of stream changes of one session adds to its counters and rollups.
 * Pure: the stream consumer reads the session, plans here, and writes the
 * plan in one conditional transaction (functions/store/counting/stream-counting.ts).
 *
 * Exactly once: changes arrive per stream shard in sequence order; the
 * session keeps, per shard, the sequence number of the last change counted
 * (its high-water mark). Only changes above the mark are planned, and the
 * transaction that applies them moves the mark on the condition that it is
 * still the one read — so a redelivered or concurrently processed change is
 * never counted twice, and one never counted is counted on the next attempt.
 */
import type { CostSource } from "../pricing/price-usage.js";
import { TOKEN_USAGE_FIELDS, type TokenUsage } from "../pricing/usage.js";
import {
  addModelTally,
  type DayCounters,
  emptyModelTally,
  isZeroTally,
  MAX_MODELS_PER_SESSION,
  MAX_TOOLS_PER_SESSION,
  type ModelTallies,
  type ModelTally,
  OTHER_MODEL,
  OTHER_TOOL,
  outcomeCounters,
  UNNAMED_MODEL,
} from "./rollup.js";
import type { FinalStatus } from "./session.js";

/** What counting needs of an event image. */
export interface CountedEvent {
  readonly eventType: string;
  readonly toolName?: string | undefined;
  readonly estimatedCost?: number | undefined;
  /** The model the event called, as the client named it. */
  readonly model?: string | undefined;
  /** Its token usage (only the types reported). */
  readonly usage?: TokenUsage | undefined;
  /** How its cost was found: `unpriced` when the model's price is unknown. */
  readonly costSource?: CostSource | "reported" | undefined;
  readonly createdAt: string;
  /** When it happened, as the client said (ISO; absent: its acknowledgement, `createdAt`): the alert series' time. */
  readonly occurredAt?: string | undefined;
  /** When the event expires (epoch seconds): its session is kept at least as long. */
  readonly ttl?: number | undefined;
}

/** The outcome fields of a session image that reached a final status. */
export interface EndedSession {
  readonly status: FinalStatus;
  readonly success?: boolean | undefined;
  readonly failureReason?: string | undefined;
  readonly estimatedCost?: number | undefined;
  readonly durationMs?: number | undefined;
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  /** When it ended (ISO): the alert series' time of its end. */
  readonly completedAt?: string | undefined;
}

/** One change of the stream, as counting sees it (everything else is not counted). */
export type SessionChange =
  | { readonly kind: "eventAdded"; readonly sequence: string; readonly event: CountedEvent }
  | {
      readonly kind: "eventReplaced";
      readonly sequence: string;
      readonly before: CountedEvent;
      readonly after: CountedEvent;
    }
  | { readonly kind: "sessionStarted"; readonly sequence: string }
  | { readonly kind: "sessionEnded"; readonly sequence: string; readonly session: EndedSession };

/** What counting has already recorded on the session item. */
export interface CountingState {
  /** High-water mark of the shard the changes come from (a padded sequence number), if any change of it was counted. */
  readonly mark: string | undefined;
  readonly startCounted: boolean;
  readonly outcomeCounted: boolean;
  /** The session's per-tool counters as stored (tool name → count). */
  readonly toolCalls: Readonly<Record<string, number>>;
  readonly toolErrors: Readonly<Record<string, number>>;
  /** The session's per-model tallies as stored (model name → tally; absent: none yet). */
  readonly models?: ModelTallies | undefined;
}

export type ToolCounter = "toolCalls" | "toolErrors";

/** Per-tool call and error counts (tool name → counts), built with own keys only. */
export type ToolTallies = Readonly<Record<string, { readonly calls: number; readonly errors: number }>>;

/** What a run had counted of its events when the session's end came (events after it are late ones). */
export interface CountedAtEnd {
  readonly eventCount: number;
  readonly eventCost: number;
  readonly usage: Readonly<Record<TokenField, number>>;
  readonly modelCalls: number;
  readonly unpricedCalls: number;
}

export interface CountingPlan {
  /** The shard's new high-water mark: the last change of the run. */
  readonly mark: string;
  /** How many changes above the old mark the plan counts. */
  readonly counted: number;
  readonly eventCount: number;
  readonly eventCost: number;
  /** What the run adds to the session's sums of its events' usage, per token type. */
  readonly usage: Readonly<Record<TokenField, number>>;
  /** Model calls (events with `model` or `usage`) the run adds, and how many of them are `unpriced`. */
  readonly modelCalls: number;
  readonly unpricedCalls: number;
  /** The session's per-model tallies after the run (undefined: unchanged). */
  readonly modelUsage: ModelTallies | undefined;
  /** Increments of the session's per-tool counters, under the name each is counted as. */
  readonly toolIncrements: readonly { readonly counter: ToolCounter; readonly toolName: string; readonly by: number }[];
  /** What the run adds to the session's day rollups (agent and user). */
  readonly rollup: {
    readonly counters: DayCounters;
    readonly tools: ToolTallies;
    /** Per model (under the name each is counted as), what the run adds to the agent's day. */
    readonly models: ModelTallies;
    readonly failure?: { reason: string; count: number };
  };
  /** 1 when the run counts the session's start into its agent's summary. */
  readonly agentSessions: 0 | 1;
  readonly startCounted: boolean;
  readonly outcomeCounted: boolean;
  /** The newest acknowledgement time (`createdAt`) among the events counted, if any. */
  readonly countsAsOf: string | undefined;
  /** The latest expiry among the events counted (epoch seconds), if any has one. */
  readonly expiresAt: number | undefined;
  /** The session's ends among the changes, for the session.completed/failed notifications. */
  readonly endings: readonly EndedSession[];
  /** What the run counted before the end it carries, if any (a notification reports the counts at the end). */
  readonly countedAtEnd: CountedAtEnd | undefined;
}

export type TokenField = (typeof TOKEN_USAGE_FIELDS)[number];

const SEQUENCE_DIGITS = 40;

/** A stream sequence number (decimal digits, up to 40) padded so that text order is numeric order. */
export function paddedSequence(sequence: string): string {
  if (!/^\d{1,40}$/.test(sequence)) throw new Error(`Not a stream sequence number: ${sequence}`);
  return sequence.padStart(SEQUENCE_DIGITS, "0");
}

/** Which per-tool counter an event type moves, if any. */
export function toolCounterOf(eventType: string): ToolCounter | undefined {
  if (eventType === "tool_call") return "toolCalls";
  if (eventType === "error") return "toolErrors";
  return undefined;
}

function finiteCost(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function finiteCount(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Whether an event is a model call: it names a model or reports token usage. */
export function isModelCall(event: CountedEvent): boolean {
  return event.model !== undefined || event.usage !== undefined;
}

/**
 * What one model call counts (calls, cost, tokens per type, unpriced). `totalTokens` when not reported is
 * `promptTokens + completionTokens` when both are (functions/pricing/usage.ts's convention).
 */
export function modelCallTally(event: CountedEvent): ModelTally {
  const usage = event.usage ?? {};
  const tally = emptyModelTally();
  tally.calls = 1;
  tally.estimatedCost = finiteCost(event.estimatedCost);
  for (const field of TOKEN_USAGE_FIELDS) tally[field] = finiteCount(usage[field]);
  if (usage.totalTokens === undefined && usage.promptTokens !== undefined && usage.completionTokens !== undefined) {
    tally.totalTokens = finiteCount(usage.promptTokens) + finiteCount(usage.completionTokens);
  }
  tally.unpricedCalls = event.costSource === "unpriced" ? 1 : 0;
  return tally;
}

/**
 * The name a model call is counted under, given the session's per-model tallies so far: its model (the calls
 * without one under UNNAMED_MODEL); a model new to a session that already counts MAX_MODELS_PER_SESSION by name
 * under OTHER_MODEL. Replayed over the session's recorded names it gives the same names as when counted (a name
 * once counted stays in the session's list, at 0 if its calls were replaced).
 */
export function countedModelName(known: ModelTallies, model: string | undefined): string {
  if (model === undefined) return UNNAMED_MODEL;
  if (known.has(model)) return model;
  let named = 0;
  for (const name of known.keys()) if (name !== UNNAMED_MODEL && name !== OTHER_MODEL) named++;
  return named < MAX_MODELS_PER_SESSION ? model : OTHER_MODEL;
}

/**
 * The plan for the changes of one session from one shard, in sequence order; undefined when none is above the
 * state's mark (all were counted before).
 */
export function planCounting(state: CountingState, changes: readonly SessionChange[]): CountingPlan | undefined {
  const fresh = changes.filter((change) => state.mark === undefined || paddedSequence(change.sequence) > state.mark);
  const last = fresh.at(-1);
  if (last === undefined) return undefined;
  // Maps, not objects: tool names are client text (`__proto__`, `constructor`).
  const known = {
    toolCalls: new Map(Object.entries(state.toolCalls)),
    toolErrors: new Map(Object.entries(state.toolErrors)),
  };
  const increments = new Map<string, { counter: ToolCounter; toolName: string; by: number }>();
  const rollupTools = new Map<string, { calls: number; errors: number }>();
  const knownModels = new Map<string, ModelTally>(state.models ?? []);
  const rollupModels = new Map<string, ModelTally>();
  const usage = Object.fromEntries(TOKEN_USAGE_FIELDS.map((field) => [field, 0])) as Record<TokenField, number>;
  let modelCalls = 0;
  let unpricedCalls = 0;
  let eventCount = 0;
  let eventCost = 0;
  let countsAsOf: string | undefined;
  let expiresAt: number | undefined;
  let startCounted = state.startCounted;
  let outcomeCounted = state.outcomeCounted;
  let agentSessions: 0 | 1 = 0;
  const rollupCounters: Record<string, number> = {};
  const add = (name: string, value: number) => {
    if (value !== 0) rollupCounters[name] = (rollupCounters[name] ?? 0) + value;
  };
  let failure: { reason: string; count: number } | undefined;
  const endings: EndedSession[] = [];
  let countedAtEnd: CountedAtEnd | undefined;

  const countEvent = (event: CountedEvent, sign: 1 | -1) => {
    eventCount += sign;
    eventCost += sign * finiteCost(event.estimatedCost);
    if (sign === 1 && (countsAsOf === undefined || event.createdAt > countsAsOf)) countsAsOf = event.createdAt;
    if (sign === 1 && event.ttl !== undefined && (expiresAt === undefined || event.ttl > expiresAt))
      expiresAt = event.ttl;
    if (isModelCall(event)) {
      const tally = modelCallTally(event);
      for (const field of TOKEN_USAGE_FIELDS) usage[field] += sign * tally[field];
      modelCalls += sign;
      unpricedCalls += sign * tally.unpricedCalls;
      const name = countedModelName(knownModels, event.model);
      knownModels.set(name, addModelTally(knownModels.get(name) ?? emptyModelTally(), tally, sign));
      rollupModels.set(name, addModelTally(rollupModels.get(name) ?? emptyModelTally(), tally, sign));
    }
    const counter = toolCounterOf(event.eventType);
    if (counter === undefined || event.toolName === undefined) return;
    const counts = known[counter];
    const name = counts.has(event.toolName) || counts.size < MAX_TOOLS_PER_SESSION ? event.toolName : OTHER_TOOL;
    counts.set(name, (counts.get(name) ?? 0) + sign);
    const key = `${counter}\u0000${name}`;
    const entry = increments.get(key) ?? { counter, toolName: name, by: 0 };
    increments.set(key, { ...entry, by: entry.by + sign });
    const tool = rollupTools.get(name) ?? { calls: 0, errors: 0 };
    rollupTools.set(name, {
      calls: tool.calls + (counter === "toolCalls" ? sign : 0),
      errors: tool.errors + (counter === "toolErrors" ? sign : 0),
    });
  };

  for (const change of fresh) {
    switch (change.kind) {
      case "eventAdded":
        countEvent(change.event, 1);
        break;
      case "eventReplaced":
        countEvent(change.before, -1);
        countEvent(change.after, 1);
        break;
      case "sessionStarted":
        if (!startCounted) {
          startCounted = true;
          agentSessions = 1;
          add("sessions", 1);
        }
        break;
      case "sessionEnded":
        if (!outcomeCounted) {
          outcomeCounted = true;
          endings.push(change.session);
          countedAtEnd = { eventCount, eventCost, usage: { ...usage }, modelCalls, unpricedCalls };
          for (const [name, value] of Object.entries(
            outcomeCounters({ ...change.session, eventCount: 0, eventCost: 0 }),
          )) {
            add(name, value ?? 0);
          }
          if (change.session.status === "failed" && change.session.failureReason !== undefined) {
            failure = { reason: change.session.failureReason, count: 1 };
          }
        }
        break;
    }
  }
  add("events", eventCount);
  add("eventCost", eventCost);
  return {
    mark: paddedSequence(last.sequence),
    counted: fresh.length,
    eventCount,
    eventCost,
    usage,
    modelCalls,
    unpricedCalls,
    modelUsage: rollupModels.size === 0 ? undefined : knownModels,
    toolIncrements: [...increments.values()].filter((increment) => increment.by !== 0),
    rollup: {
      counters: rollupCounters as DayCounters,
      tools: Object.fromEntries([...rollupTools].filter(([, counts]) => counts.calls !== 0 || counts.errors !== 0)),
      models: new Map([...rollupModels].filter(([, tally]) => !isZeroTally(tally))),
      ...(failure === undefined ? {} : { failure }),
    },
    agentSessions,
    startCounted,
    outcomeCounted,
    countsAsOf,
    expiresAt,
    endings,
    countedAtEnd,
  };
}

/** One change's share of the rollups, as counted when its session's counters took it in. */
export interface ChangeShare {
  /** The change's padded sequence number. */
  readonly sequence: string;
  readonly rollup: CountingPlan["rollup"];
  /** 1 when the change counts the session's start into its agent's summary. */
  readonly agentSessions: 0 | 1;
}

/**
 * Each change's share of the rollups (changes that add nothing left out), planned one after another from
 * `before`: the session's counting state before the first of them (its mark is ignored). The stream consumer
 * aggregates the shares of a batch across its sessions per rollup item (functions/store/counting/rollup-flush.ts), and
 * needs them per change because a rollup item's mark says which changes it already holds.
 */
export function changeShares(before: CountingState, changes: readonly SessionChange[]): ChangeShare[] {
  const toolCalls = new Map(Object.entries(before.toolCalls));
  const toolErrors = new Map(Object.entries(before.toolErrors));
  let models: ModelTallies = before.models ?? new Map();
  let startCounted = before.startCounted;
  let outcomeCounted = before.outcomeCounted;
  const shares: ChangeShare[] = [];
  for (const change of changes) {
    const plan = planCounting(
      {
        mark: undefined,
        startCounted,
        outcomeCounted,
        toolCalls: Object.fromEntries(toolCalls),
        toolErrors: Object.fromEntries(toolErrors),
        models,
      },
      [change],
    );
    if (plan === undefined) continue;
    models = plan.modelUsage ?? models;
    startCounted = plan.startCounted;
    outcomeCounted = plan.outcomeCounted;
    for (const increment of plan.toolIncrements) {
      const counts = increment.counter === "toolCalls" ? toolCalls : toolErrors;
      counts.set(increment.toolName, (counts.get(increment.toolName) ?? 0) + increment.by);
    }
    const { counters, tools, models: modelShares, failure } = plan.rollup;
    if (
      Object.keys(counters).length === 0 &&
      Object.keys(tools).length === 0 &&
      modelShares.size === 0 &&
      failure === undefined
    ) {
      continue;
    }
    shares.push({ sequence: plan.mark, rollup: plan.rollup, agentSessions: plan.agentSessions });
  }
  return shares;
}

/**
 * The counting state before `changes`, from the state a session item (or its deletion's tombstone) records
 * now, with `mark` for this shard: the changes at or below the mark were counted into it, so their start and
 * end are taken back out (a session has one start and one end on the stream; a legacy session's were counted
 * on the request path and stay counted). Per-tool names stay as recorded: replayed in order, a change maps
 * its tool to the same name (or to OTHER_TOOL) as when it was counted.
 */
export function stateBefore(
  recorded: CountingState,
  legacy: boolean,
  changes: readonly SessionChange[],
): CountingState {
  if (legacy || recorded.mark === undefined) return recorded;
  const counted = changes.filter((change) => paddedSequence(change.sequence) <= (recorded.mark as string));
  return {
    ...recorded,
    startCounted: recorded.startCounted && !counted.some((change) => change.kind === "sessionStarted"),
    outcomeCounted: recorded.outcomeCounted && !counted.some((change) => change.kind === "sessionEnded"),
  };
}
