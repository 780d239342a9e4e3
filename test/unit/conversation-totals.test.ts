/** A conversation's totals: its runs' own figures (session-totals.ts) summed, unknown figures staying unknown. */
import { describe, expect, it } from "vitest";
import { conversationTotals } from "../../functions/domain/conversation.js";
import type { Session } from "../../functions/domain/session.js";

function run(fields: Partial<Session>): Session {
  return {
    id: "ses_1",
    name: "turn",
    agentName: "chat-bot",
    userId: "u",
    orgId: "acme",
    environment: "live",
    status: "completed",
    eventCount: 0,
    eventCost: 0,
    toolCalls: {},
    toolErrors: {},
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt: "2026-11-22T10:00:00.000Z",
    lastActivityAt: "2026-11-22T10:00:00.000Z",
    ...fields,
  };
}

describe("conversationTotals", () => {
  it("counts runs by status and sums what each run shows: reported totals, else its events' sums", () => {
    // Prepare
    const runs = [
      run({ status: "completed", estimatedCost: 0.5, totalTokens: 100, durationMs: 1000, eventCount: 2 }),
      run({ status: "failed", eventCost: 0.25, modelCalls: 1, eventTotalTokens: 40, eventCount: 3 }),
      run({ status: "active", eventCount: 0 }),
    ];

    // Act
    const totals = conversationTotals(runs);

    // Assess
    expect(totals).toEqual({
      runs: 3,
      active: 1,
      completed: 1,
      failed: 1,
      estimatedCost: 0.75,
      promptTokens: null,
      completionTokens: null,
      totalTokens: 140,
      modelCalls: 1,
      eventCount: 5,
      durationMs: 1000,
      durationCount: 1,
    });
  });

  it("is all zeros and unknowns for no runs", () => {
    expect(conversationTotals([])).toMatchObject({ runs: 0, estimatedCost: null, totalTokens: null, durationMs: null });
  });
});
