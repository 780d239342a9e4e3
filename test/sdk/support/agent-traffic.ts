/**
 * A steady stream of agent activity for the SDK's delivery tests: sessions
 * started over time, each recording numbered tool calls, then ended; and the
 * check that the service holds every one of them exactly once.
 */
import { expect } from "vitest";
import type { AgentTracker, Run } from "../../../sdk/src/index.js";

export interface Traffic {
  readonly runs: Run[];
  readonly eventsPerRun: number;
}

/** `sessions` runs started `gapMs · eventsPerRun / 2` apart, each recording `eventsPerRun` tool calls `gapMs` apart. */
export async function produceTraffic(
  ats: AgentTracker,
  options: { sessions: number; eventsPerRun: number; gapMs: number; agentName: string },
): Promise<Traffic> {
  const runs: Run[] = [];
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const workers: Promise<void>[] = [];
  for (let s = 0; s < options.sessions; s++) {
    const run = await ats.startSession({ name: `run ${s}`, agentName: options.agentName, userId: `user-${s % 3}` });
    runs.push(run);
    workers.push(
      (async () => {
        for (let i = 0; i < options.eventsPerRun; i++) {
          run.toolCall({ toolName: i % 2 === 0 ? "search" : "fetch", toolInput: { step: i }, estimatedCost: 0.25 });
          await pause(options.gapMs);
        }
        await run.end({ status: "completed" });
      })(),
    );
    await pause((options.gapMs * options.eventsPerRun) / 2 / options.sessions);
  }
  await Promise.all(workers);
  return { runs, eventsPerRun: options.eventsPerRun };
}

type Get = (path: string) => Promise<{ status: number; body: Record<string, unknown> }>;

/** Every run is stored with exactly its events (no loss, no duplicate) and exact counters. */
export async function expectStoredExactlyOnce(get: Get, traffic: Traffic): Promise<void> {
  for (const run of traffic.runs) {
    // Counters follow the stream a moment after the events are acknowledged (the server polls it every 250 ms).
    let session = await get(`/api/sdk/sessions/${run.id}`);
    for (let waited = 0; session.body.eventCount !== traffic.eventsPerRun && waited < 30_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      session = await get(`/api/sdk/sessions/${run.id}`);
    }
    expect(session.status, `session ${run.id}`).toBe(200);
    const half = traffic.eventsPerRun / 2;
    expect(session.body).toMatchObject({
      status: "completed",
      eventCount: traffic.eventsPerRun,
      eventCost: traffic.eventsPerRun * 0.25,
      toolCalls: { search: Math.ceil(half), fetch: Math.floor(half) },
    });
    const steps: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
      const page = await get(`/api/sdk/sessions/${run.id}/events${query}`);
      expect(page.status).toBe(200);
      for (const event of page.body.items as { toolInput: { step: number } }[]) steps.push(event.toolInput.step);
      cursor = page.body.nextCursor as string | null;
    } while (cursor !== null);
    expect(steps.sort((a, b) => a - b)).toEqual([...Array(traffic.eventsPerRun).keys()]);
  }
}
