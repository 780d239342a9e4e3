/**
 * The counting plan (functions/domain/session-counting.ts): what a run of stream changes of one session adds,
 * given what the session item says was counted before (the shard's high-water mark, startCounted,
 * outcomeCounted, the per-tool maps). Exactly once is a property of folding plans: whatever way the stream
 * cuts, repeats and overlaps its deliveries, applying each plan to the state it was made from counts every
 * change once.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addModelTally,
  emptyModelTally,
  MAX_MODELS_PER_SESSION,
  MAX_TOOLS_PER_SESSION,
  type ModelTally,
  OTHER_MODEL,
  OTHER_TOOL,
  UNNAMED_MODEL,
} from "../../functions/domain/rollup.js";
import {
  type CountedEvent,
  type CountingPlan,
  type CountingState,
  changeShares,
  type EndedSession,
  paddedSequence,
  planCounting,
  type SessionChange,
  stateBefore,
} from "../../functions/domain/session-counting.js";

const EMPTY: CountingState = {
  mark: undefined,
  startCounted: false,
  outcomeCounted: false,
  toolCalls: {},
  toolErrors: {},
};

function event(overrides: Partial<CountedEvent> = {}): CountedEvent {
  return { eventType: "state_change", createdAt: "2030-01-01T00:00:00.000Z", ...overrides };
}

function added(sequence: number | string, overrides: Partial<CountedEvent> = {}): SessionChange {
  return { kind: "eventAdded", sequence: String(sequence), event: event(overrides) };
}

function ended(sequence: number | string, session: Partial<EndedSession> = {}): SessionChange {
  return { kind: "sessionEnded", sequence: String(sequence), session: { status: "completed", ...session } };
}

function started(sequence: number | string): SessionChange {
  return { kind: "sessionStarted", sequence: String(sequence) };
}

/** The counting state of a session item after the plan's transaction committed on it. */
function applied(state: CountingState, plan: CountingPlan): CountingState {
  const toolCalls: Record<string, number> = Object.fromEntries(Object.entries(state.toolCalls));
  const toolErrors: Record<string, number> = Object.fromEntries(Object.entries(state.toolErrors));
  for (const { counter, toolName, by } of plan.toolIncrements) {
    const counts = counter === "toolCalls" ? toolCalls : toolErrors;
    const before = Object.hasOwn(counts, toolName) ? (counts[toolName] ?? 0) : 0;
    // defineProperty: a tool named `__proto__` is an own key, as in the stored map.
    Object.defineProperty(counts, toolName, {
      value: before + by,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return {
    mark: plan.mark,
    startCounted: plan.startCounted,
    outcomeCounted: plan.outcomeCounted,
    toolCalls,
    toolErrors,
    models: plan.modelUsage ?? state.models,
  };
}

describe("paddedSequence", () => {
  it("pads to 40 digits so that text order is numeric order", () => {
    expect(paddedSequence("9")).toHaveLength(40);
    expect(paddedSequence("9") < paddedSequence("10")).toBe(true);
    expect(paddedSequence("99999999999999999999") < paddedSequence("100000000000000000000")).toBe(true);
    expect("9" < "10").toBe(false); // what the padding is for
  });

  it("refuses what is not a stream sequence number", () => {
    expect(() => paddedSequence("")).toThrow("Not a stream sequence number: ");
    expect(() => paddedSequence("12a")).toThrow("Not a stream sequence number: 12a");
    expect(() => paddedSequence("1".repeat(41))).toThrow("Not a stream sequence number");
  });
});

describe("planCounting", () => {
  it("counts the changes above the mark only, and moves the mark to the last change", () => {
    const state: CountingState = { ...EMPTY, mark: paddedSequence("20") };
    const plan = planCounting(state, [
      added(10, { estimatedCost: 1 }),
      added(20, { estimatedCost: 2 }),
      added(30, { estimatedCost: 4 }),
      added(40, { estimatedCost: 8 }),
    ]);

    expect(plan).toMatchObject({ mark: paddedSequence("40"), counted: 2, eventCount: 2, eventCost: 12 });
    expect(plan?.rollup.counters).toEqual({ events: 2, eventCost: 12 });
  });

  it("orders sequences numerically: 10 is above a mark of 9, 9 is not above a mark of 10", () => {
    const aboveNine = planCounting({ ...EMPTY, mark: paddedSequence("9") }, [added(9), added(10)]);
    const belowTen = planCounting({ ...EMPTY, mark: paddedSequence("10") }, [added(9), added(10)]);

    expect(aboveNine).toMatchObject({ counted: 1, eventCount: 1, mark: paddedSequence("10") });
    expect(belowTen).toBeUndefined();
  });

  it("a redelivered run is counted once: the state its plan produces plans nothing for the same changes", () => {
    const changes = [started(1), added(2, { estimatedCost: 0.5 }), added(3, { eventType: "tool_call", toolName: "a" })];
    const first = planCounting(EMPTY, changes);
    if (first === undefined) throw new Error("nothing planned");

    const again = planCounting(applied(EMPTY, first), changes);

    expect(first).toMatchObject({ counted: 3, eventCount: 2, eventCost: 0.5, agentSessions: 1, startCounted: true });
    expect(again).toBeUndefined();
  });

  it("a partially applied run (mark in the middle) counts only the rest", () => {
    const changes = [added(100), added(101, { estimatedCost: 1 }), added(102, { estimatedCost: 2 }), added(103)];
    const firstTwo = planCounting(EMPTY, changes.slice(0, 2));
    if (firstTwo === undefined) throw new Error("nothing planned");

    const rest = planCounting(applied(EMPTY, firstTwo), changes);

    expect(rest).toMatchObject({ counted: 2, eventCount: 2, eventCost: 2, mark: paddedSequence("103") });
  });

  it("counts the session's start once (startCounted) and its end once (outcomeCounted)", () => {
    const end = ended(3, { status: "failed", failureReason: "timeout", durationMs: 200, estimatedCost: 0.25 });
    const first = planCounting(EMPTY, [started(1), added(2), end]);
    if (first === undefined) throw new Error("nothing planned");
    // The same start and end seen again on another shard (no mark there): nothing more for them.
    const otherShard = planCounting({ ...applied(EMPTY, first), mark: undefined }, [started(1), end]);

    expect(first).toMatchObject({ agentSessions: 1, startCounted: true, outcomeCounted: true });
    expect(first.rollup.counters).toMatchObject({ sessions: 1, failed: 1, reportedCost: 0.25, durationCount: 1 });
    expect(first.rollup.failure).toEqual({ reason: "timeout", count: 1 });
    expect(first.endings).toEqual([end.kind === "sessionEnded" ? end.session : undefined]);
    expect(otherShard).toMatchObject({ agentSessions: 0, counted: 2, eventCount: 0, endings: [] });
    expect(otherShard?.rollup).toEqual({ counters: {}, tools: {}, models: new Map() });
  });

  it("records countsAsOf as the newest createdAt counted, and the latest ttl", () => {
    const plan = planCounting(EMPTY, [
      added(1, { createdAt: "2030-01-01T00:00:02.000Z", ttl: 300 }),
      added(2, { createdAt: "2030-01-01T00:00:03.000Z", ttl: 100 }),
      added(3, { createdAt: "2030-01-01T00:00:01.000Z" }),
    ]);

    expect(plan).toMatchObject({ countsAsOf: "2030-01-01T00:00:03.000Z", expiresAt: 300 });
    expect(planCounting(EMPTY, [started(1)])).toMatchObject({ countsAsOf: undefined, expiresAt: undefined });
  });

  it("counts tool names beyond MAX_TOOLS_PER_SESSION as OTHER_TOOL, known names by name", () => {
    const known = Object.fromEntries(Array.from({ length: MAX_TOOLS_PER_SESSION }, (_, index) => [`tool-${index}`, 1]));
    const plan = planCounting({ ...EMPTY, toolCalls: known }, [
      added(1, { eventType: "tool_call", toolName: "tool-3" }),
      added(2, { eventType: "tool_call", toolName: "new-a" }),
      added(3, { eventType: "tool_call", toolName: "new-b" }),
      added(4, { eventType: "error", toolName: "new-c" }),
    ]);

    expect(plan?.toolIncrements).toEqual([
      { counter: "toolCalls", toolName: "tool-3", by: 1 },
      { counter: "toolCalls", toolName: OTHER_TOOL, by: 2 },
      { counter: "toolErrors", toolName: "new-c", by: 1 },
    ]);
    expect(plan?.rollup.tools).toEqual({
      "tool-3": { calls: 1, errors: 0 },
      [OTHER_TOOL]: { calls: 2, errors: 0 },
      "new-c": { calls: 0, errors: 1 },
    });
  });

  it("counts the first MAX_TOOLS_PER_SESSION new names of one run by name, the next as OTHER_TOOL", () => {
    const changes = Array.from({ length: MAX_TOOLS_PER_SESSION + 2 }, (_, index) =>
      added(index + 1, { eventType: "tool_call", toolName: `t${index}` }),
    );

    const names = planCounting(EMPTY, changes)?.toolIncrements.map(({ toolName, by }) => [toolName, by]);

    expect(names).toHaveLength(MAX_TOOLS_PER_SESSION + 1);
    expect(names?.at(-1)).toEqual([OTHER_TOOL, 2]);
  });

  it("counts `__proto__` and `constructor` as own keys, never as Object's", () => {
    const plan = planCounting({ ...EMPTY, toolCalls: JSON.parse('{"__proto__": 2}') as Record<string, number> }, [
      added(1, { eventType: "tool_call", toolName: "__proto__" }),
      added(2, { eventType: "tool_call", toolName: "constructor" }),
      added(3, { eventType: "error", toolName: "constructor" }),
      added(4, { eventType: "tool_call", toolName: "toString" }),
    ]);
    if (plan === undefined) throw new Error("nothing planned");

    expect(plan.toolIncrements).toEqual([
      { counter: "toolCalls", toolName: "__proto__", by: 1 },
      { counter: "toolCalls", toolName: "constructor", by: 1 },
      { counter: "toolErrors", toolName: "constructor", by: 1 },
      { counter: "toolCalls", toolName: "toString", by: 1 },
    ]);
    expect(Object.keys(plan.rollup.tools)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.hasOwn(plan.rollup.tools, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(plan.rollup.tools)).toBe(Object.prototype);
    expect(plan.rollup.tools.constructor).toEqual({ calls: 1, errors: 1 });
  });

  it("eventReplaced counts the difference: the old image out, the new one in", () => {
    const replaced: SessionChange = {
      kind: "eventReplaced",
      sequence: "5",
      before: event({ eventType: "tool_call", toolName: "search", estimatedCost: 1 }),
      after: event({ eventType: "error", toolName: "search", estimatedCost: 0.25 }),
    };

    const plan = planCounting({ ...EMPTY, toolCalls: { search: 1 } }, [replaced]);

    expect(plan).toMatchObject({ eventCount: 0, eventCost: -0.75, counted: 1 });
    expect(plan?.toolIncrements).toEqual([
      { counter: "toolCalls", toolName: "search", by: -1 },
      { counter: "toolErrors", toolName: "search", by: 1 },
    ]);
    expect(plan?.rollup).toEqual({
      counters: { eventCost: -0.75 },
      tools: { search: { calls: -1, errors: 1 } },
      models: new Map(),
    });
  });

  it("ignores costs that are not finite numbers", () => {
    const plan = planCounting(EMPTY, [added(1, { estimatedCost: Number.NaN }), added(2, { estimatedCost: 0.5 })]);

    expect(plan).toMatchObject({ eventCount: 2, eventCost: 0.5 });
  });

  it("plans nothing for no changes", () => {
    expect(planCounting(EMPTY, [])).toBeUndefined();
  });
});

describe("planCounting of model calls", () => {
  const call = (sequence: number, model: string | undefined, overrides: Partial<CountedEvent> = {}) =>
    added(sequence, { eventType: "llm_call", model, usage: { promptTokens: 100, completionTokens: 20 }, ...overrides });

  it("sums usage per token type, counts model calls and unpriced ones, per model for the agent's day", () => {
    const plan = planCounting(EMPTY, [
      call(1, "gpt-4o", { estimatedCost: 0.5, costSource: "table", usage: { promptTokens: 100, cacheReadTokens: 40 } }),
      call(2, "gpt-4o", { costSource: "unpriced", usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } }),
      call(3, undefined, { estimatedCost: 0.25, costSource: "reported", usage: { reasoningTokens: 7 } }),
      added(4, { eventType: "tool_call", toolName: "search", estimatedCost: 1 }),
    ]) as CountingPlan;

    expect(plan.usage).toEqual({
      promptTokens: 110,
      completionTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      reasoningTokens: 7,
    });
    expect(plan).toMatchObject({ modelCalls: 3, unpricedCalls: 1, eventCount: 4, eventCost: 1.75 });
    expect([...plan.rollup.models.keys()]).toEqual(["gpt-4o", UNNAMED_MODEL]);
    expect(plan.rollup.models.get("gpt-4o")).toEqual({
      ...emptyModelTally(),
      calls: 2,
      estimatedCost: 0.5,
      promptTokens: 110,
      completionTokens: 5,
      totalTokens: 15,
      cacheReadTokens: 40,
      unpricedCalls: 1,
    });
    expect(plan.rollup.models.get(UNNAMED_MODEL)).toMatchObject({ calls: 1, estimatedCost: 0.25, reasoningTokens: 7 });
    expect(plan.modelUsage).toEqual(plan.rollup.models);
  });

  it("takes totalTokens as promptTokens + completionTokens when only those two are reported", () => {
    const plan = planCounting(EMPTY, [call(1, "m")]) as CountingPlan;
    expect(plan.usage.totalTokens).toBe(120);
    const promptOnly = planCounting(EMPTY, [call(1, "m", { usage: { promptTokens: 100 } })]) as CountingPlan;
    expect(promptOnly.usage.totalTokens).toBe(0);
  });

  it("keeps what was counted when the session ended (usage, model calls, unpriced ones): later calls are late", () => {
    const plan = planCounting(EMPTY, [
      call(1, "gpt-4o", { estimatedCost: 0.5, costSource: "table", usage: { promptTokens: 100, cacheReadTokens: 40 } }),
      call(2, "mine", { costSource: "unpriced", usage: { completionTokens: 5 } }),
      ended(3),
      call(4, "gpt-4o", { estimatedCost: 0.25, costSource: "table", usage: { promptTokens: 9 } }),
    ]) as CountingPlan;
    expect(plan.countedAtEnd).toEqual({
      eventCount: 2,
      eventCost: 0.5,
      usage: {
        promptTokens: 100,
        completionTokens: 5,
        totalTokens: 0,
        cacheReadTokens: 40,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      modelCalls: 2,
      unpricedCalls: 1,
    });
    expect(plan).toMatchObject({ eventCount: 3, modelCalls: 3, usage: { promptTokens: 109 } });
  });

  it("counts events without model or usage as no model call, and leaves modelUsage unchanged", () => {
    const plan = planCounting(EMPTY, [added(1, { eventType: "llm_call", estimatedCost: 2, costSource: "reported" })]);
    expect(plan).toMatchObject({ modelCalls: 0, eventCost: 2, modelUsage: undefined });
    expect(plan?.rollup.models.size).toBe(0);
  });

  it("counts model names beyond MAX_MODELS_PER_SESSION as OTHER_MODEL, known names and unnamed calls as themselves", () => {
    const known = new Map(
      Array.from({ length: MAX_MODELS_PER_SESSION }, (_, index) => [`model-${index}`, emptyModelTally()] as const),
    );
    const plan = planCounting({ ...EMPTY, models: known }, [call(1, "model-3"), call(2, "new"), call(3, undefined)]);
    expect([...(plan?.rollup.models.keys() ?? [])]).toEqual(["model-3", OTHER_MODEL, UNNAMED_MODEL]);
    expect(plan?.modelUsage?.size).toBe(MAX_MODELS_PER_SESSION + 2);
  });

  it("keeps hostile model names as plain Map keys", () => {
    const plan = planCounting(EMPTY, [call(1, "__proto__"), call(2, "constructor"), call(3, "toString")]);
    expect([...(plan?.rollup.models.keys() ?? [])]).toEqual(["__proto__", "constructor", "toString"]);
    expect(plan?.rollup.models.get("__proto__")?.calls).toBe(1);
  });

  it("eventReplaced moves the call from the old model to the new one (the old name kept at 0)", () => {
    const before = event({ eventType: "llm_call", model: "a", usage: { promptTokens: 10 }, costSource: "unpriced" });
    const after = event({ eventType: "llm_call", model: "b", usage: { promptTokens: 10 }, estimatedCost: 0.1 });
    const first = planCounting(EMPTY, [added(1, before)]) as CountingPlan;
    const replaced = planCounting(applied(EMPTY, first), [{ kind: "eventReplaced", sequence: "2", before, after }]);
    expect(replaced?.rollup.models.get("a")).toMatchObject({ calls: -1, promptTokens: -10, unpricedCalls: -1 });
    expect(replaced?.rollup.models.get("b")).toMatchObject({ calls: 1, promptTokens: 10, estimatedCost: 0.1 });
    expect(replaced).toMatchObject({ modelCalls: 0, unpricedCalls: -1 });
    expect(replaced?.modelUsage?.get("a")).toEqual(emptyModelTally());
  });

  it("changeShares split the models of a run per change, summing to the plan's", () => {
    const changes = [call(1, "a"), call(2, "b", { estimatedCost: 1 }), added(3), call(4, "a")];
    const plan = planCounting(EMPTY, changes) as CountingPlan;
    const shares = changeShares(EMPTY, changes);
    const summed = new Map<string, ModelTally>();
    for (const share of shares) {
      for (const [name, tally] of share.rollup.models)
        summed.set(name, addModelTally(summed.get(name) ?? emptyModelTally(), tally));
    }
    expect(summed).toEqual(plan.rollup.models);
  });
});

// ---------------------------------------------------------------------------
// Exactly once, whatever the deliveries: fast-check.
// ---------------------------------------------------------------------------

const TOOL_NAMES = ["search", "fetch", "__proto__", "constructor", "toString", "hasOwnProperty"] as const;

/** What a change, counted once, adds (the reference the folded plans are held to). */
interface Totals {
  eventCount: number;
  eventCost: number;
  agentSessions: number;
  endings: number;
  counters: Map<string, number>;
  tools: Map<string, { calls: number; errors: number }>;
  toolCalls: Map<string, number>;
  toolErrors: Map<string, number>;
  /** Per model: what the rollup shares add, and the session's usage sums. */
  models: Map<string, ModelTally>;
  usage: Map<string, number>;
  modelCalls: number;
  unpricedCalls: number;
}

function emptyTotals(): Totals {
  return {
    eventCount: 0,
    eventCost: 0,
    agentSessions: 0,
    endings: 0,
    counters: new Map(),
    tools: new Map(),
    toolCalls: new Map(),
    toolErrors: new Map(),
    models: new Map(),
    usage: new Map(),
    modelCalls: 0,
    unpricedCalls: 0,
  };
}

function addModel(totals: Totals, name: string, tally: ModelTally, sign: 1 | -1 = 1): void {
  const next = addModelTally(totals.models.get(name) ?? emptyModelTally(), tally, sign);
  if (Object.values(next).every((value) => value === 0)) totals.models.delete(name);
  else totals.models.set(name, next);
}

function addTo(map: Map<string, number>, name: string, by: number): void {
  const value = (map.get(name) ?? 0) + by;
  if (value === 0) map.delete(name);
  else map.set(name, value);
}

function addTool(totals: Totals, name: string, calls: number, errors: number): void {
  const tool = totals.tools.get(name) ?? { calls: 0, errors: 0 };
  const next = { calls: tool.calls + calls, errors: tool.errors + errors };
  if (next.calls === 0 && next.errors === 0) totals.tools.delete(name);
  else totals.tools.set(name, next);
}

function foldPlan(totals: Totals, plan: CountingPlan): void {
  totals.eventCount += plan.eventCount;
  totals.eventCost += plan.eventCost;
  totals.agentSessions += plan.agentSessions;
  totals.endings += plan.endings.length;
  for (const [name, value] of Object.entries(plan.rollup.counters)) addTo(totals.counters, name, value ?? 0);
  for (const [name, { calls, errors }] of Object.entries(plan.rollup.tools)) addTool(totals, name, calls, errors);
  for (const { counter, toolName, by } of plan.toolIncrements) {
    addTo(counter === "toolCalls" ? totals.toolCalls : totals.toolErrors, toolName, by);
  }
  for (const [name, tally] of plan.rollup.models) addModel(totals, name, tally);
  for (const [field, value] of Object.entries(plan.usage)) addTo(totals.usage, field, value);
  totals.modelCalls += plan.modelCalls;
  totals.unpricedCalls += plan.unpricedCalls;
}

/** Each change counted once, by hand (tool names stay below MAX_TOOLS_PER_SESSION here). */
function countedOnce(changes: readonly SessionChange[]): Totals {
  const totals = emptyTotals();
  let startSeen = false;
  let endSeen = false;
  const countEvent = (counted: CountedEvent, sign: number) => {
    totals.eventCount += sign;
    totals.eventCost += sign * (counted.estimatedCost ?? 0);
    addTo(totals.counters, "events", sign);
    addTo(totals.counters, "eventCost", sign * (counted.estimatedCost ?? 0));
    if (counted.model !== undefined || counted.usage !== undefined) {
      const usage = counted.usage ?? {};
      const tally: Record<keyof ModelTally, number> = {
        ...emptyModelTally(),
        calls: 1,
        estimatedCost: counted.estimatedCost ?? 0,
        promptTokens: usage.promptTokens ?? 0,
        completionTokens: usage.completionTokens ?? 0,
        totalTokens: usage.totalTokens ?? 0,
        cacheReadTokens: usage.cacheReadTokens ?? 0,
        unpricedCalls: counted.costSource === "unpriced" ? 1 : 0,
      };
      addModel(totals, counted.model ?? UNNAMED_MODEL, tally, sign as 1 | -1);
      for (const field of ["promptTokens", "completionTokens", "totalTokens", "cacheReadTokens"] as const)
        addTo(totals.usage, field, sign * tally[field]);
      totals.modelCalls += sign;
      totals.unpricedCalls += sign * tally.unpricedCalls;
    }
    if (counted.toolName === undefined) return;
    if (counted.eventType === "tool_call") {
      addTo(totals.toolCalls, counted.toolName, sign);
      addTool(totals, counted.toolName, sign, 0);
    }
    if (counted.eventType === "error") {
      addTo(totals.toolErrors, counted.toolName, sign);
      addTool(totals, counted.toolName, 0, sign);
    }
  };
  for (const change of changes) {
    if (change.kind === "eventAdded") countEvent(change.event, 1);
    if (change.kind === "eventReplaced") {
      countEvent(change.before, -1);
      countEvent(change.after, 1);
    }
    if (change.kind === "sessionStarted" && !startSeen) {
      startSeen = true;
      totals.agentSessions += 1;
      addTo(totals.counters, "sessions", 1);
    }
    if (change.kind === "sessionEnded" && !endSeen) {
      endSeen = true;
      totals.endings += 1;
      addTo(totals.counters, change.session.status, 1);
      if (change.session.success === true) addTo(totals.counters, "succeeded", 1);
    }
  }
  return totals;
}

const countedEventArbitrary = fc.record({
  eventType: fc.constantFrom("tool_call", "error", "state_change", "llm_decision"),
  toolName: fc.option(fc.constantFrom(...TOOL_NAMES), { nil: undefined }),
  // Quarters: exact in binary, so sums do not depend on the order of addition.
  estimatedCost: fc.option(
    fc.integer({ min: 0, max: 40 }).map((quarters) => quarters / 4),
    { nil: undefined },
  ),
  model: fc.option(fc.constantFrom("gpt-4o", "claude-sonnet-4", "__proto__", "constructor"), { nil: undefined }),
  // totalTokens always given here: the derived total is unit-tested on its own.
  usage: fc.option(
    fc.record({
      promptTokens: fc.integer({ min: 0, max: 5000 }),
      completionTokens: fc.integer({ min: 0, max: 5000 }),
      totalTokens: fc.integer({ min: 0, max: 10000 }),
      cacheReadTokens: fc.integer({ min: 0, max: 5000 }),
    }),
    { nil: undefined },
  ),
  costSource: fc.option(fc.constantFrom("reported" as const, "table" as const, "unpriced" as const), {
    nil: undefined,
  }),
  createdAt: fc
    .integer({ min: 0, max: 86_400_000 })
    .map((offset) => new Date(Date.UTC(2030, 0, 1) + offset).toISOString()),
});

type ChangeShape =
  | { kind: "eventAdded"; event: CountedEvent }
  | { kind: "eventReplaced"; before: CountedEvent; after: CountedEvent }
  | { kind: "sessionStarted" }
  | { kind: "sessionEnded"; session: EndedSession };

const changeShapeArbitrary: fc.Arbitrary<ChangeShape> = fc.oneof(
  { weight: 6, arbitrary: countedEventArbitrary.map((counted) => ({ kind: "eventAdded" as const, event: counted })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(countedEventArbitrary, countedEventArbitrary)
      .map(([before, after]) => ({ kind: "eventReplaced" as const, before, after })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "sessionStarted" as const }) },
  {
    weight: 1,
    arbitrary: fc
      .record({ status: fc.constantFrom("completed" as const, "failed" as const), success: fc.boolean() })
      .map((session) => ({ kind: "sessionEnded" as const, session })),
  },
);

/** Changes with increasing sequence numbers of varying length (so that "9" < "10" matters). */
const changesArbitrary = fc
  .tuple(
    fc.bigInt({ min: 1n, max: 99n }),
    fc.array(fc.tuple(changeShapeArbitrary, fc.bigInt({ min: 1n, max: 10n ** 12n })), { minLength: 1, maxLength: 40 }),
  )
  .map(([first, shapes]) => {
    let sequence = first;
    return shapes.map(([shape, gap]) => {
      sequence += gap;
      return { ...shape, sequence: sequence.toString() } as SessionChange;
    });
  });

/**
 * How the stream delivers them: batches in order, each starting anywhere at or before the first change not yet
 * counted (so a batch may repeat any counted prefix, or be a pure repeat of counted changes), ending anywhere
 * after its start; a batch's transaction may fail (its plan is not applied, the batch comes again).
 */
interface Delivery {
  readonly startFraction: number;
  readonly lengthFraction: number;
  readonly commits: boolean;
}

const deliveriesArbitrary = fc.array(
  fc.record({
    startFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    lengthFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    commits: fc.boolean(),
  }),
  { maxLength: 30 },
);

/** Folds the plans of the deliveries (then of batches of the rest until everything is counted). */
function foldDeliveries(
  changes: readonly SessionChange[],
  deliveries: readonly Delivery[],
): { totals: Totals; plans: number } {
  const totals = emptyTotals();
  let state = EMPTY;
  let firstUncounted = 0;
  let plans = 0;
  const deliver = (start: number, end: number, commits: boolean) => {
    const plan = planCounting(state, changes.slice(start, end));
    if (plan === undefined || !commits) return;
    plans += 1;
    foldPlan(totals, plan);
    state = applied(state, plan);
    firstUncounted = Math.max(firstUncounted, end);
  };
  for (const delivery of deliveries) {
    const start = Math.min(firstUncounted, Math.floor(delivery.startFraction * (firstUncounted + 1)));
    const end = start + 1 + Math.floor(delivery.lengthFraction * (changes.length - start));
    deliver(start, Math.min(end, changes.length), delivery.commits);
  }
  // The stream delivers the rest eventually (and once more all of it, which counts nothing).
  while (firstUncounted < changes.length) deliver(firstUncounted, Math.min(changes.length, firstUncounted + 7), true);
  deliver(0, changes.length, true);
  return { totals, plans };
}

describe("planCounting folded over redelivered, overlapping batches (property)", () => {
  it("gives the same totals as counting each change once", () => {
    fc.assert(
      fc.property(changesArbitrary, deliveriesArbitrary, (changes, deliveries) => {
        const { totals } = foldDeliveries(changes, deliveries);
        const reference = countedOnce(changes);
        expect(totals.eventCount).toBe(reference.eventCount);
        expect(totals.eventCost).toBe(reference.eventCost);
        expect(totals.agentSessions).toBe(reference.agentSessions);
        expect(totals.endings).toBe(reference.endings);
        expect(Object.fromEntries(totals.toolCalls)).toEqual(Object.fromEntries(reference.toolCalls));
        expect(Object.fromEntries(totals.toolErrors)).toEqual(Object.fromEntries(reference.toolErrors));
        expect(Object.fromEntries(totals.tools)).toEqual(Object.fromEntries(reference.tools));
        expect(totals.models).toEqual(reference.models);
        expect(totals.usage).toEqual(reference.usage);
        expect(totals.modelCalls).toBe(reference.modelCalls);
        expect(totals.unpricedCalls).toBe(reference.unpricedCalls);
        for (const name of ["sessions", "completed", "failed", "succeeded", "events", "eventCost"]) {
          expect(totals.counters.get(name) ?? 0, name).toBe(reference.counters.get(name) ?? 0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("with more tools than a session keeps by name, folds to what one plan of all changes counts", () => {
    const manyTools = fc.array(
      fc.record({
        toolName: fc.integer({ min: 0, max: 2 * MAX_TOOLS_PER_SESSION }).map((index) => `tool-${index}`),
        errors: fc.boolean(),
      }),
      { minLength: 1, maxLength: 80 },
    );
    fc.assert(
      fc.property(manyTools, deliveriesArbitrary, (tools, deliveries) => {
        const changes = tools.map(({ toolName, errors }, index) =>
          added(1_000 + index * 7, { eventType: errors ? "error" : "tool_call", toolName }),
        );
        const once = planCounting(EMPTY, changes);
        if (once === undefined) throw new Error("nothing planned");
        const reference = emptyTotals();
        foldPlan(reference, once);

        const { totals } = foldDeliveries(changes, deliveries);

        expect(Object.fromEntries(totals.toolCalls)).toEqual(Object.fromEntries(reference.toolCalls));
        expect(Object.fromEntries(totals.toolErrors)).toEqual(Object.fromEntries(reference.toolErrors));
        expect(Object.fromEntries(totals.tools)).toEqual(Object.fromEntries(reference.tools));
        expect(totals.toolCalls.size).toBeLessThanOrEqual(MAX_TOOLS_PER_SESSION + 1);
        expect(totals.eventCount).toBe(changes.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("changeShares and stateBefore (a batch's rollup shares, per change)", () => {
  const started: SessionChange = { kind: "sessionStarted", sequence: "1" };
  const changes: SessionChange[] = [
    started,
    added(2, { eventType: "tool_call", toolName: "search", estimatedCost: 0.5 }),
    added(3, { eventType: "error", toolName: "search" }),
    ended(4, { status: "failed", failureReason: "timeout", durationMs: 1200 }),
  ];

  it("sum to the rollup of one plan of all the changes", () => {
    const shares = changeShares(EMPTY, changes);
    const plan = planCounting(EMPTY, changes) as CountingPlan;
    const summed: Record<string, number> = {};
    for (const share of shares) {
      for (const [name, value] of Object.entries(share.rollup.counters))
        summed[name] = (summed[name] ?? 0) + (value ?? 0);
    }
    expect(summed).toEqual(plan.rollup.counters);
    expect(shares.map((share) => share.sequence)).toEqual(changes.map((change) => paddedSequence(change.sequence)));
    expect(shares.map((share) => share.agentSessions)).toEqual([1, 0, 0, 0]);
    expect(shares[3]?.rollup.failure).toEqual({ reason: "timeout", count: 1 });
  });

  it("recomputed after the session counted them (mark at the end), give the same shares as before it did", () => {
    const plan = planCounting(EMPTY, changes) as CountingPlan;
    const recorded: CountingState = {
      mark: plan.mark,
      startCounted: plan.startCounted,
      outcomeCounted: plan.outcomeCounted,
      toolCalls: { search: 1 },
      toolErrors: { search: 1 },
    };
    const before = stateBefore(recorded, false, changes);
    expect(before.startCounted).toBe(false);
    expect(before.outcomeCounted).toBe(false);
    expect(changeShares(before, changes)).toEqual(changeShares(EMPTY, changes));
  });

  it("keep a start counted in an earlier batch counted (not among the changes), and a legacy session's as recorded", () => {
    const later = [added(7)];
    const recorded: CountingState = { ...EMPTY, mark: paddedSequence("7"), startCounted: true, outcomeCounted: false };
    expect(stateBefore(recorded, false, later).startCounted).toBe(true);
    const legacy: CountingState = { ...EMPTY, mark: paddedSequence("4"), startCounted: true, outcomeCounted: true };
    expect(stateBefore(legacy, true, changes)).toEqual(legacy);
  });

  it("leave out changes that add nothing (an event replaced by the same counts)", () => {
    const same = event({ eventType: "tool_call", toolName: "search" });
    const replaced: SessionChange = { kind: "eventReplaced", sequence: "9", before: same, after: same };
    expect(changeShares({ ...EMPTY, startCounted: true }, [replaced])).toEqual([]);
  });
});
