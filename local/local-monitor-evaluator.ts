/**
 * The local stand-in for the monitors' schedule (an EventBridge rule, rate 1 minute, on AWS): `npm start` evaluates
 * every monitor every 60 s (`ATS_ALERT_EVALUATION_MS` overrides, e.g. for an end-to-end test), one run at a time —
 * a run still going when the next is due makes the next wait, as the budget would on AWS.
 */
export interface LocalMonitorEvaluator {
  stop(): void;
}

/** The evaluation period: ATS_ALERT_EVALUATION_MS, else a minute. */
export function evaluationPeriodMs(raw = process.env.ATS_ALERT_EVALUATION_MS): number {
  if (raw === undefined || raw === "") return 60_000;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 100) {
    throw new Error(`ATS_ALERT_EVALUATION_MS must be an integer of at least 100 (ms), got "${raw}"`);
  }
  return value;
}

/** Needs the service environment configured (see local-database.ts). */
export async function startLocalMonitorEvaluator(periodMs = evaluationPeriodMs()): Promise<LocalMonitorEvaluator> {
  const { evaluateMonitors } = await import("../functions/alerts/monitor-evaluation.js");
  const { logError, logger } = await import("../functions/runtime/log.js");
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    evaluateMonitors(new Date())
      .then((report) => {
        if (report.transitions > 0 || report.failed > 0) logger.info("monitors evaluated", { ...report });
      })
      .catch((error: unknown) => logError("local monitor evaluation failed; the next run tries again", error))
      .finally(() => {
        running = false;
      });
  }, periodMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
