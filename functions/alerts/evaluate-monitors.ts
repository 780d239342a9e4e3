/**
 * The scheduled evaluator (an EventBridge rule, rate 1 minute; lib/constructs/monitor-schedule.ts): evaluates
 * every enabled monitor at the event's time (monitor-evaluation.ts) and logs what the run did.
 */
import type { ScheduledEvent } from "aws-lambda";
import { logger } from "../runtime/log.js";
import { type EvaluationReport, evaluateMonitors } from "./monitor-evaluation.js";

export async function handler(event: Pick<ScheduledEvent, "time">): Promise<EvaluationReport> {
  const scheduled = Date.parse(event.time);
  // The rule's time is the minute it fired for: a late start evaluates that minute, not the next.
  const report = await evaluateMonitors(Number.isFinite(scheduled) ? new Date(scheduled) : new Date());
  logger.info("monitors evaluated", { ...report });
  return report;
}
