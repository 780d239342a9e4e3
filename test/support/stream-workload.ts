/**
 * A mixed recording for the stream tests: sessions of two agents and three
 * users, single events and batches interleaved across sessions, tool calls
 * and errors under awkward tool names, costs exact in binary (sums do not
 * depend on the order of addition), completed and failed ends, late events.
 */
import { expect } from "vitest";

/** Sends one request; resolves with its status and JSON body. */
export type Send = (
  method: "POST" | "PATCH",
  path: string,
  body: unknown,
) => Promise<{ status: number; body: Record<string, unknown> }>;

export const AWKWARD_TOOLS = ["search", "__proto__", "constructor", "toString", "a#TOOL#b"] as const;
const COSTS = [0.25, 0.5, 0.125, undefined] as const;

/** The i-th event of the mix. */
export function workloadEvent(sessionId: string, index: number): Record<string, unknown> {
  const cost = COSTS[index % COSTS.length];
  const kind = index % 3;
  return {
    sessionId,
    eventType: kind === 0 ? "tool_call" : kind === 1 ? "error" : "llm_decision",
    ...(kind === 2 ? {} : { toolName: AWKWARD_TOOLS[index % AWKWARD_TOOLS.length] }),
    ...(cost === undefined ? {} : { estimatedCost: cost }),
  };
}

/** Session `index`'s end: completed, failed with a reason, or none (left active). */
export function workloadEnd(index: number): Record<string, unknown> | undefined {
  if (index % 3 === 0) return { status: "completed", durationMs: 400 + index, estimatedCost: 0.5, totalTokens: 10 };
  if (index % 3 === 1) return { status: "failed", failureReason: `reason ${index % 2}`, durationMs: 90_000 };
  return undefined;
}

export interface WorkloadOptions {
  readonly sessions: number;
  /** Events per session before its end (singles and one batch), then `late` after it. */
  readonly eventsPerSession: number;
  readonly late: number;
  readonly agentPrefix?: string;
}

/** Records the workload; resolves with the session ids and how many events were acknowledged. */
export async function recordWorkload(
  send: Send,
  options: WorkloadOptions,
): Promise<{ sessionIds: string[]; events: number }> {
  const agent = options.agentPrefix ?? "stream-agent";
  const sessionIds: string[] = [];
  for (let index = 0; index < options.sessions; index++) {
    const created = await send("POST", "/api/sdk/sessions", {
      name: `workload ${index}`,
      agentName: `${agent}-${index % 2}`,
      userId: `stream-user-${index % 3}`,
    });
    expect(created.status).toBe(201);
    sessionIds.push(String(created.body.id));
  }
  let events = 0;
  const singles = Math.ceil(options.eventsPerSession / 2);
  // Interleaved across sessions, so every stream batch holds records of several sessions.
  for (let round = 0; round < singles; round++) {
    const answers = await Promise.all(
      sessionIds.map((sessionId) => send("POST", "/api/sdk/events", workloadEvent(sessionId, round))),
    );
    for (const answer of answers) expect(answer.status).toBe(201);
    events += answers.length;
  }
  const batched = options.eventsPerSession - singles;
  const batches = await Promise.all(
    sessionIds.map((sessionId) =>
      send("POST", "/api/sdk/events/batch", {
        events: Array.from({ length: batched }, (_, index) => workloadEvent(sessionId, singles + index)),
      }),
    ),
  );
  for (const batch of batches) {
    expect((batch.body.results as { status: number }[]).every((result) => result.status === 201)).toBe(true);
    events += batched;
  }
  for (const [index, sessionId] of sessionIds.entries()) {
    const end = workloadEnd(index);
    if (end !== undefined) expect((await send("PATCH", `/api/sdk/sessions/${sessionId}`, end)).status).toBe(200);
  }
  for (let round = 0; round < options.late; round++) {
    const answers = await Promise.all(
      sessionIds.map((sessionId) => send("POST", "/api/sdk/events", workloadEvent(sessionId, 100 + round))),
    );
    for (const answer of answers) expect(answer.status).toBe(201);
    events += answers.length;
  }
  return { sessionIds, events };
}
