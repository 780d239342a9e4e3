/** The session totals rule (functions/domain/session-totals.ts): the client's totals when reported, else the events' sums. */
import { describe, expect, it } from "vitest";
import { eventUsageOf, sessionTotals } from "../../functions/domain/session-totals.js";

describe("sessionTotals", () => {
  it("returns what the client reported for the run, whatever the events add up to", () => {
    const totals = sessionTotals({
      estimatedCost: 0.5,
      promptTokens: 1000,
      completionTokens: 200,
      totalTokens: 1200,
      eventCost: 0.02,
      eventUsage: { promptTokens: 10, completionTokens: 2, totalTokens: 12, cacheReadTokens: 4 },
      modelCalls: 1,
    });
    expect(totals).toEqual({
      estimatedCost: 0.5,
      promptTokens: 1000,
      completionTokens: 200,
      totalTokens: 1200,
      cacheReadTokens: 4,
      // No event reported these types: unknown, not zero.
      cacheWriteTokens: null,
      reasoningTokens: null,
      modelCalls: 1,
      unpricedCalls: 0,
    });
  });

  it("falls back to the events' sums field by field (a reported 0 is reported)", () => {
    const totals = sessionTotals({
      completionTokens: 0,
      eventCost: 0.1 + 0.2,
      eventUsage: { promptTokens: 30, completionTokens: 7, totalTokens: 37, reasoningTokens: 3 },
      modelCalls: 2,
      unpricedCalls: 1,
    });
    expect(totals).toMatchObject({
      estimatedCost: 0.3,
      promptTokens: 30,
      completionTokens: 0,
      totalTokens: 37,
      reasoningTokens: 3,
      unpricedCalls: 1,
    });
  });

  it("is null where nothing was reported and no counted event reported it; the cost is eventCost once an event had one", () => {
    expect(sessionTotals({ eventCost: 0 })).toEqual({
      estimatedCost: null,
      promptTokens: null,
      completionTokens: null,
      totalTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
      modelCalls: 0,
      unpricedCalls: 0,
    });
    expect(sessionTotals({ eventCost: 0.25 })).toMatchObject({ estimatedCost: 0.25, promptTokens: null });
    // A model call without a price still makes the cost a number (0), never blank; one without usage leaves the
    // tokens unknown (a stream recorded without usage says nothing about them).
    expect(sessionTotals({ eventCost: 0, modelCalls: 1, unpricedCalls: 1 })).toMatchObject({
      estimatedCost: 0,
      promptTokens: null,
    });
  });

  it("reads the usage sums from the session item's attributes", () => {
    expect(eventUsageOf({ eventPromptTokens: 5, eventReasoningTokens: 2 })).toEqual({
      promptTokens: 5,
      completionTokens: undefined,
      totalTokens: undefined,
      cacheReadTokens: undefined,
      cacheWriteTokens: undefined,
      reasoningTokens: 2,
    });
  });
});
