/**
 * One model call seen by two unlinked spans, told by time, scope and model (functions/domain/unlinked-call-pairs.ts):
 * within each other up to the clocks' slack, and only each other's one nearest candidate.
 */
import { describe, expect, it } from "vitest";
import {
  type CallExtent,
  CLOCK_SLACK_MS,
  enclosedPairs,
  PAIRING_CALLS,
  runsWithin,
} from "../../functions/domain/unlinked-call-pairs.js";

const client: CallExtent = {
  spanId: "c",
  parentSpanId: "run",
  startMs: 110,
  endMs: 190,
  scope: "openai",
  models: ["gpt-4o"],
};
const framework: CallExtent = {
  spanId: "f",
  parentSpanId: "run",
  startMs: 100,
  endMs: 200,
  scope: "langchain",
  models: ["gpt-4o"],
};

/** The pairs found, each as its two span ids in order (which of the two is inner aside). */
function together(pairs: ReadonlyMap<string, string>): string[] {
  return [...pairs].map((pair) => [...pair].sort().join("+")).sort();
}

describe("runsWithin", () => {
  it("holds for a span of another scope and the same model, within the other in time", () => {
    expect(runsWithin(client, framework)).toBe(true);
    expect(runsWithin({ ...client, models: ["gpt-4o-2024-08-06"] }, framework)).toBe(true);
    expect(runsWithin({ ...client, models: undefined }, framework)).toBe(true);
  });

  it("never holds for spans of one scope, of other models, unnamed scopes, parent and child, or one span", () => {
    expect(runsWithin({ ...client, scope: "langchain" }, framework)).toBe(false);
    expect(runsWithin({ ...client, models: ["claude-3"] }, framework)).toBe(false);
    expect(runsWithin({ ...client, scope: undefined }, framework)).toBe(false);
    expect(runsWithin(client, { ...framework, scope: undefined })).toBe(false);
    expect(runsWithin({ ...client, parentSpanId: "f" }, framework)).toBe(false);
    expect(runsWithin(client, { ...framework, parentSpanId: "c" })).toBe(false);
    expect(runsWithin(client, { ...client, scope: "langchain" })).toBe(false);
  });

  it("lets each bound lie up to CLOCK_SLACK_MS outside the other span's, no further", () => {
    expect(runsWithin({ ...client, endMs: framework.endMs + CLOCK_SLACK_MS }, framework)).toBe(true);
    expect(runsWithin({ ...client, endMs: framework.endMs + CLOCK_SLACK_MS + 1 }, framework)).toBe(false);
    expect(runsWithin({ ...client, startMs: framework.startMs - CLOCK_SLACK_MS }, framework)).toBe(true);
    expect(runsWithin({ ...client, startMs: framework.startMs - CLOCK_SLACK_MS - 1 }, framework)).toBe(false);
  });

  it("never holds for the next call, after one lasting longer than the slack", () => {
    expect(runsWithin({ ...client, startMs: 200, endMs: 203 }, framework)).toBe(false);
    expect(runsWithin(framework, { ...client, startMs: 200, endMs: 203 })).toBe(false);
  });
});

describe("enclosedPairs", () => {
  it("pairs a span within another, inner → outer, in any order given", () => {
    expect(enclosedPairs([framework, client])).toEqual(new Map([["c", "f"]]));
    expect(enclosedPairs([client, framework])).toEqual(new Map([["c", "f"]]));
  });

  it("pairs the spans of one call as OpenTelemetry JS times them: ends a millisecond off, or the same bounds", () => {
    // Measured (LangChain's span and the OpenAI client's of one call): the client's start 1 ms later, its end
    // 1 ms later too.
    expect(enclosedPairs([framework, { ...client, startMs: 101, endMs: 201 }])).toEqual(new Map([["c", "f"]]));
    // The same start, the client's end 1 ms later: each runs within the other by the slack; the one reaching
    // less outside the other is taken as the inner one, the same way whatever the order given.
    const lateEnd = { ...client, startMs: 100, endMs: 201 };
    expect(enclosedPairs([framework, lateEnd])).toEqual(new Map([["f", "c"]]));
    expect(enclosedPairs([lateEnd, framework])).toEqual(new Map([["f", "c"]]));
    // A call of about 1 ms: the client's span a millisecond after LangChain's at both ends.
    const shortCall = { ...framework, startMs: 100, endMs: 101 };
    expect(enclosedPairs([shortCall, { ...client, startMs: 101, endMs: 102 }])).toEqual(new Map([["c", "f"]]));
    // Bounds equal to the millisecond: the lower span id is the inner one.
    const same = { ...client, startMs: 100, endMs: 200 };
    expect(enclosedPairs([framework, same])).toEqual(new Map([["c", "f"]]));
    expect(enclosedPairs([same, framework])).toEqual(new Map([["c", "f"]]));
  });

  it("pairs none of two calls at once: a span within two alike, or around two alike, is no one's partner", () => {
    const second = { ...client, spanId: "c2", startMs: 120, endMs: 180 };
    expect(enclosedPairs([framework, client, second])).toEqual(new Map());
    const otherFramework = { ...framework, spanId: "f2", startMs: 105, endMs: 195 };
    expect(enclosedPairs([framework, otherFramework, client])).toEqual(new Map());
    // Three instrumentations seeing one call: whose partner the middle one is cannot be told.
    const third = { ...client, spanId: "t", scope: "traceloop", startMs: 105, endMs: 195 };
    expect(enclosedPairs([framework, third, client])).toEqual(new Map());
  });

  it("pairs each of two calls in a row with its own partner, however close (the nearest candidate wins)", () => {
    // Short calls back to back, as a fake model server answers: each client span is within its framework span
    // exactly, and within the slack of the other's.
    const calls: CallExtent[] = [
      { ...framework, spanId: "f1", startMs: 100, endMs: 103 },
      { ...client, spanId: "c1", startMs: 100, endMs: 103 },
      { ...framework, spanId: "f2", startMs: 104, endMs: 106 },
      { ...client, spanId: "c2", startMs: 104, endMs: 107 },
    ];
    expect(together(enclosedPairs(calls))).toEqual(["c1+f1", "c2+f2"]);
    // A call seen once, right after a call seen twice, is never taken for its partner.
    const seenOnce = { ...framework, spanId: "g", startMs: 103, endMs: 104 };
    expect(together(enclosedPairs([calls[0] as CallExtent, calls[1] as CallExtent, seenOnce]))).toEqual(["c1+f1"]);
  });

  it("looks for no pair among more than PAIRING_CALLS calls, and stops at the calls that overlap", () => {
    const overlapping = Array.from({ length: PAIRING_CALLS + 1 }, (_, index) => ({
      spanId: `s${index}`,
      startMs: index,
      endMs: PAIRING_CALLS * 2 - index,
      scope: index % 2 === 0 ? "a" : "b",
    }));
    expect(enclosedPairs(overlapping)).toEqual(new Map());
    const apart = Array.from({ length: PAIRING_CALLS }, (_, index) => ({
      spanId: `t${index}`,
      startMs: index * 10,
      endMs: index * 10 + (index % 2 === 0 ? 9 : 5),
      scope: index % 2 === 0 ? "a" : "b",
    }));
    const started = performance.now();
    expect(enclosedPairs(apart)).toEqual(new Map());
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
