/**
 * `session.completed` / `session.failed` notifications: what the stream
 * consumer publishes when it counts a session's end, so teams can route
 * failures and cost spikes to their alerting without polling. On AWS they go
 * to the stack's EventBridge bus (`SESSION_EVENTS_BUS`); locally (`npm start`)
 * each is appended as one JSON line to `SESSION_EVENTS_FILE` and logged.
 *
 * Delivery is at least once: a notification is published before the counts
 * that produce it are committed, so a consumer that crashes in between
 * publishes it again. `detail.notificationId` is the same every time; use it
 * to drop repeats.
 */
import { appendFile } from "node:fs/promises";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { eventUsageOf, sessionTotals } from "../domain/session-totals.js";
import { optionalEnv } from "../runtime/env.js";
import { logger } from "../runtime/log.js";
import type { SessionEnding } from "../store/counting/stream-counting.js";

/** `source` of every notification. */
export const NOTIFICATION_SOURCE = "agent-tracking";

/** The EventBridge `detail` of a notification (documented in docs/notifications.md). */
export function notificationDetail({ session, ended }: SessionEnding) {
  // The read API's rule (domain/session-totals.ts): what the client reported at the end, else its events' sums.
  const totals = sessionTotals({
    estimatedCost: ended.estimatedCost,
    promptTokens: ended.promptTokens,
    completionTokens: ended.completionTokens,
    totalTokens: ended.totalTokens,
    eventCost: session.eventCost,
    eventUsage: eventUsageOf(session),
    modelCalls: session.modelCalls,
    unpricedCalls: session.unpricedCalls,
  });
  return {
    notificationId: `${session.id}:${ended.status}`,
    sessionId: session.id,
    orgId: session.orgId,
    environment: session.environment,
    name: session.name,
    agentName: session.agentName,
    userId: session.userId,
    status: ended.status,
    success: ended.success ?? null,
    failureReason: ended.failureReason ?? null,
    estimatedCost: totals.estimatedCost,
    durationMs: ended.durationMs ?? null,
    promptTokens: totals.promptTokens,
    completionTokens: totals.completionTokens,
    totalTokens: totals.totalTokens,
    cacheReadTokens: totals.cacheReadTokens,
    cacheWriteTokens: totals.cacheWriteTokens,
    reasoningTokens: totals.reasoningTokens,
    modelCalls: totals.modelCalls,
    unpricedCalls: totals.unpricedCalls,
    eventCount: session.eventCount,
    eventCost: session.eventCost,
    createdAt: session.createdAt,
    completedAt: session.completedAt ?? null,
  };
}

export function notificationType(ending: SessionEnding): "session.completed" | "session.failed" {
  return ending.ended.status === "failed" ? "session.failed" : "session.completed";
}

/** PutEvents takes at most 10 entries. */
const PUT_EVENTS_LIMIT = 10;

let eventBridge: EventBridgeClient | undefined;

async function publishToBus(bus: string, endings: readonly SessionEnding[]): Promise<void> {
  eventBridge ??= new EventBridgeClient({});
  for (let start = 0; start < endings.length; start += PUT_EVENTS_LIMIT) {
    const entries = endings.slice(start, start + PUT_EVENTS_LIMIT).map((ending) => ({
      EventBusName: bus,
      Source: NOTIFICATION_SOURCE,
      DetailType: notificationType(ending),
      Detail: JSON.stringify(notificationDetail(ending)),
    }));
    const result = await eventBridge.send(new PutEventsCommand({ Entries: entries }));
    if ((result.FailedEntryCount ?? 0) > 0) {
      throw new Error(`EventBridge refused ${result.FailedEntryCount} of ${entries.length} session notifications`);
    }
  }
}

async function appendToFile(file: string, endings: readonly SessionEnding[]): Promise<void> {
  const lines = endings.map((ending) =>
    JSON.stringify({
      source: NOTIFICATION_SOURCE,
      "detail-type": notificationType(ending),
      detail: notificationDetail(ending),
    }),
  );
  await appendFile(file, `${lines.join("\n")}\n`, "utf8");
}

/** Publishes notifications of session endings where this environment sends them. */
export async function publishSessionEndings(endings: readonly SessionEnding[]): Promise<void> {
  if (endings.length === 0) return;
  const bus = optionalEnv("SESSION_EVENTS_BUS");
  if (bus !== undefined) return publishToBus(bus, endings);
  for (const ending of endings) {
    logger.info("session notification", { detailType: notificationType(ending), sessionId: ending.session.id });
  }
  const file = optionalEnv("SESSION_EVENTS_FILE");
  if (file !== undefined) await appendToFile(file, endings);
}
