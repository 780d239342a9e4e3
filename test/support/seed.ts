/**
 * Seeds realistic volumes through the store layer (the same code the
 * handlers run, so counters and rollups are maintained as in production),
 * with a small worker pool to keep DynamoDB Local busy on two cores.
 */
import type { EventType } from "../../functions/domain/event.js";
import type { Principal } from "../../functions/domain/principal.js";
import { createEvent } from "../../functions/store/events/event-store.js";
import { createSession, updateSession } from "../../functions/store/sessions/session-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;
export const AGENTS = ["support-bot", "refund-agent", "triage"] as const;
export const TOOLS = ["search_docs", "lookup_order", "send_email", "refund", "escalate"] as const;
export const FAILURES = ["tool timed out", "user abandoned", "policy violation"] as const;

export function principalFor(orgId: string, environment: "live" | "test" = "live"): Principal {
  return {
    keyId: "seed",
    orgId,
    environment,
    scopes: ["sessions:write", "events:write", "read", "delete"],
    retentionDays: 90,
    rollupRetentionDays: 400,
  };
}

/** A deterministic pseudo-random sequence (so failures reproduce). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}

export interface SeedOptions {
  readonly orgId: string;
  readonly sessions: number;
  readonly eventsPerSession: number;
  readonly users: number;
  readonly seed: number;
  /** Sessions start over this many days up to now. */
  readonly days: number;
}

/** Returns the seeded session ids. */
export async function seedTenant(options: SeedOptions, nowMs = Date.now()): Promise<string[]> {
  const principal = principalFor(options.orgId);
  const next = random(options.seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const plans = Array.from({ length: options.sessions }, (_, index) => ({
    index,
    agentName: pick(AGENTS),
    userId: `user-${Math.floor(next() * options.users)}`,
    startMs: nowMs - Math.floor(next() * options.days * DAY_MS) - 60_000,
    outcome: next(),
    events: Array.from({ length: options.eventsPerSession }, () => ({
      type: pick<EventType>(["tool_call", "tool_call", "llm_decision", "state_change", "error"]),
      tool: pick(TOOLS),
      confidence: Math.round(next() * 100) / 100,
      cost: Math.floor(next() * 4) * 0.25,
    })),
    lateEvent: next() < 0.2,
    reportedCost: Math.floor(next() * 8) * 0.5,
    durationMs: Math.floor(next() * 400_000),
    tokens: Math.floor(next() * 5000),
    failure: pick(FAILURES),
  }));
  const ids: string[] = [];
  await pool(plans, 8, async (plan) => {
    const session = await createSession(
      principal,
      { name: `run ${plan.index}`, agentName: plan.agentName, userId: plan.userId },
      plan.startMs,
    );
    ids.push(session.id);
    let at = plan.startMs;
    for (const event of plan.events) {
      at += 1_000;
      await createEvent(
        principal,
        {
          sessionId: session.id,
          eventType: event.type,
          ...(event.type === "tool_call" || event.type === "error" ? { toolName: event.tool } : {}),
          ...(event.type === "tool_call" ? { toolInput: { q: plan.index }, toolOutput: { ok: true } } : {}),
          ...(event.type === "llm_decision" ? { confidence: event.confidence, reasoning: "because" } : {}),
          estimatedCost: event.cost,
        },
        at,
      );
    }
    if (plan.outcome < 0.15) return; // stays active
    const failed = plan.outcome > 0.75;
    await updateSession(
      principal,
      session.id,
      {
        status: failed ? "failed" : "completed",
        ...(failed ? { failureReason: plan.failure } : {}),
        estimatedCost: plan.reportedCost,
        durationMs: plan.durationMs,
        promptTokens: plan.tokens,
        completionTokens: Math.floor(plan.tokens / 3),
        totalTokens: plan.tokens + Math.floor(plan.tokens / 3),
      },
      at + 1_000,
    );
    if (plan.lateEvent) {
      await createEvent(
        principal,
        { sessionId: session.id, eventType: "error", toolName: "send_email", estimatedCost: 0.25 },
        at + 2_000,
      );
    }
  });
  return ids;
}
