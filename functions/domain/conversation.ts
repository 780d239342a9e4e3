/**
 * Conversations (issue 33): a chat agent's conversation is many runs, each its own session naming the
 * conversation by the client's id. A conversation is described by its first run (agent, user, start) and
 * totalled over its runs with the same rule as each run's own totals (session-totals.ts). Pure.
 */
import type { Session } from "./session.js";
import { eventUsageOf, sessionTotals } from "./session-totals.js";

/** A conversation as its summary item records it. */
export interface Conversation {
  readonly id: string;
  /** The agent and external user of its first run. */
  readonly agentName: string;
  readonly userId: string;
  /** When its first run started, and when its newest run started. */
  readonly startedAt: string;
  readonly lastRunAt: string;
  /** Runs recorded in it and not deleted (counted with each run's start and deletion, exactly). */
  readonly runCount: number;
}

/** A conversation's figures, summed over its runs as each run's own figures are shown. */
export interface ConversationTotals {
  readonly runs: number;
  readonly active: number;
  readonly completed: number;
  readonly failed: number;
  /** Sum of the runs' costs in USD (null while no run has one). */
  readonly estimatedCost: number | null;
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  readonly totalTokens: number | null;
  readonly modelCalls: number;
  readonly eventCount: number;
  /** Sum of the durations of the runs that reported one, and how many did. */
  readonly durationMs: number | null;
  readonly durationCount: number;
}

function addNullable(sum: number | null, value: number | null | undefined): number | null {
  if (value === null || value === undefined) return sum;
  return (sum ?? 0) + value;
}

/** The totals of `runs`. */
export function conversationTotals(runs: readonly Session[]): ConversationTotals {
  let totals: ConversationTotals = {
    runs: 0,
    active: 0,
    completed: 0,
    failed: 0,
    estimatedCost: null,
    promptTokens: null,
    completionTokens: null,
    totalTokens: null,
    modelCalls: 0,
    eventCount: 0,
    durationMs: null,
    durationCount: 0,
  };
  for (const session of runs) {
    const figures = sessionTotals({ ...session, eventUsage: eventUsageOf(session) });
    totals = {
      runs: totals.runs + 1,
      active: totals.active + (session.status === "active" ? 1 : 0),
      completed: totals.completed + (session.status === "completed" ? 1 : 0),
      failed: totals.failed + (session.status === "failed" ? 1 : 0),
      estimatedCost: addNullable(totals.estimatedCost, figures.estimatedCost),
      promptTokens: addNullable(totals.promptTokens, figures.promptTokens),
      completionTokens: addNullable(totals.completionTokens, figures.completionTokens),
      totalTokens: addNullable(totals.totalTokens, figures.totalTokens),
      modelCalls: totals.modelCalls + figures.modelCalls,
      eventCount: totals.eventCount + session.eventCount,
      durationMs: addNullable(totals.durationMs, session.durationMs),
      durationCount: totals.durationCount + (session.durationMs === undefined ? 0 : 1),
    };
  }
  return totals;
}
