/** What a planned demo records, counted the way the service counts it (one `error` per failed tool call, etc.). */
import type { EventType } from "../../sdk/src/index.js";
import type { DemoSession, DemoStep } from "./scenario.js";

export interface DemoSummary {
  readonly sessions: number;
  readonly failed: number;
  readonly sessionsByAgent: ReadonlyMap<string, number>;
  readonly users: number;
  readonly events: number;
  readonly eventsByType: Readonly<Record<EventType, number>>;
  readonly toolErrors: number;
  /** Sum of the events' `estimatedCost` (what each session reports as its cost), USD. */
  readonly cost: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly firstStartMs: number;
  readonly lastStartMs: number;
  readonly failureReasons: readonly string[];
}

/** The events one step records, by type. */
export function eventTypesOf(step: DemoStep): EventType[] {
  switch (step.kind) {
    case "llm":
    case "decision":
      return ["llm_decision"];
    case "tool":
      return ["tool_call"];
    case "tool_error":
      return ["tool_call", "error"];
    case "state":
      return ["state_change"];
    case "error":
      return ["error"];
  }
}

function costOf(step: DemoStep): number {
  return step.kind === "llm" || step.kind === "tool" ? step.estimatedCost : 0;
}

export function summarize(sessions: readonly DemoSession[]): DemoSummary {
  const eventsByType: Record<EventType, number> = { tool_call: 0, llm_decision: 0, state_change: 0, error: 0 };
  const sessionsByAgent = new Map<string, number>();
  const users = new Set<string>();
  const failureReasons: string[] = [];
  let cost = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let toolErrors = 0;
  for (const session of sessions) {
    sessionsByAgent.set(session.agentName, (sessionsByAgent.get(session.agentName) ?? 0) + 1);
    users.add(session.userId);
    if (session.outcome.status === "failed") failureReasons.push(session.outcome.failureReason);
    for (const step of session.steps) {
      for (const type of eventTypesOf(step)) eventsByType[type]++;
      cost += costOf(step);
      if (step.kind === "tool_error") toolErrors++;
      if (step.kind === "llm") {
        promptTokens += step.promptTokens;
        completionTokens += step.completionTokens;
      }
    }
  }
  const starts = sessions.map((session) => session.startedAtMs);
  return {
    sessions: sessions.length,
    failed: failureReasons.length,
    sessionsByAgent,
    users: users.size,
    events: Object.values(eventsByType).reduce((sum, n) => sum + n, 0),
    eventsByType,
    toolErrors,
    cost,
    promptTokens,
    completionTokens,
    firstStartMs: Math.min(...starts),
    lastStartMs: Math.max(...starts),
    failureReasons,
  };
}
