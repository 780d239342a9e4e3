/** A session as the read API shows it: every stored field, plus `stale`. */
import type { Session } from "../domain/session.js";
import { eventUsageOf, sessionTotals } from "../domain/session-totals.js";
import { numberEnv } from "../runtime/env.js";

/** An active session idle for longer than this is reported `stale: true`. */
const staleAfterMs = numberEnv("STALE_AFTER_SECONDS", 3600) * 1000;

export function sessionView(session: Session, nowMs = Date.now()) {
  // The client's totals when it reported them, else the sums over the events (domain/session-totals.ts).
  const totals = sessionTotals({ ...session, eventUsage: eventUsageOf(session) });
  return {
    id: session.id,
    name: session.name,
    agentName: session.agentName,
    userId: session.userId,
    environment: session.environment,
    metadata: session.metadata ?? null,
    conversationId: session.conversationId ?? null,
    status: session.status,
    success: session.success ?? null,
    failureReason: session.failureReason ?? null,
    estimatedCost: totals.estimatedCost,
    durationMs: session.durationMs ?? null,
    promptTokens: totals.promptTokens,
    completionTokens: totals.completionTokens,
    totalTokens: totals.totalTokens,
    cacheReadTokens: totals.cacheReadTokens,
    cacheWriteTokens: totals.cacheWriteTokens,
    reasoningTokens: totals.reasoningTokens,
    modelCalls: totals.modelCalls,
    unpricedCalls: totals.unpricedCalls,
    customMetrics: session.customMetrics ?? null,
    eventCount: session.eventCount,
    eventCost: session.eventCost,
    toolCalls: session.toolCalls ?? {},
    toolErrors: session.toolErrors ?? {},
    countsAsOf: session.countsAsOf ?? null,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    lastActivityAt: session.lastActivityAt,
    completedAt: session.completedAt ?? null,
    stale: session.status === "active" && nowMs - Date.parse(session.lastActivityAt) > staleAfterMs,
  };
}
