/**
 * The monitors' evaluation, once a minute (evaluate-monitors.ts on AWS, local/start.ts locally): a thin shell
 * around the pure state machine (domain/monitor-state-machine.ts).
 *
 * One paged Query of `MONITORS` lists every monitor; each enabled one, a few at a time, has its sliding window
 * (domain/monitor-state-machine.ts evaluationWindow) read from the series (readSeriesWindow; a label's share reads
 * the score's and the label's), its figure judged, and — only when something changed — its state written: with a
 * history entry in ONE transaction when the status changed or it renotifies (store/alerts/monitor-history-store.ts),
 * and only once that transaction succeeded is the notification handed to the delivery (dispatchAlertNotification).
 * Two evaluations of one minute, or two evaluators at once, make one entry and one notification; a monitor deleted
 * while it fires fails the transaction's condition and nothing is sent.
 *
 * A time budget bounds a run: past it, the run stops and logs how many monitors it did not reach (the next
 * minute's run starts from the first again).
 */
import type { SeriesQuery, SeriesTotals } from "../domain/alert-series.js";
import type { HistoryEntry } from "../domain/monitor.js";
import { monitorReading, monitorSeries } from "../domain/monitor-figure.js";
import { evaluationNotificationId, monitorNotification } from "../domain/monitor-notification.js";
import {
  type EvaluationWindow,
  evaluateMonitorState,
  evaluationMinute,
  evaluationWindow,
} from "../domain/monitor-state-machine.js";
import { numberEnv } from "../runtime/env.js";
import { logError, logger } from "../runtime/log.js";
import { markHandedOver, readHistoryEntry, writeEvaluation } from "../store/alerts/monitor-history-store.js";
import { monitorPages, type StoredMonitor } from "../store/alerts/monitor-store.js";
import { readSeriesWindow } from "../store/alerts/series-store.js";
import { dispatchAlertNotification } from "./delivery/notify.js";

/** What one run did. */
export interface EvaluationReport {
  /** Monitors listed (enabled or not). */
  monitors: number;
  /** Enabled monitors whose window was read and judged. */
  evaluated: number;
  /** Evaluations that wrote a state (the rest changed nothing). */
  written: number;
  /** History entries written (state changes and renotifications). */
  transitions: number;
  /** Notifications handed to the delivery. */
  notified: number;
  /** Writes refused because another evaluation, a change or a deletion of the monitor came first. */
  superseded: number;
  /** Monitors whose evaluation failed (logged; the next run tries again). */
  failed: number;
  /** Enabled monitors not reached within the time budget. */
  unreached: number;
  /** Series items read. */
  itemsRead: number;
}

export interface EvaluationOptions {
  /** Monitors evaluated at once. */
  readonly concurrency?: number;
  /** Time a run may take (ms) before it stops. */
  readonly budgetMs?: number;
  /** One organisation's monitors only (tests and tools; the schedule evaluates every organisation's). */
  readonly orgId?: string;
}

const DEFAULT_CONCURRENCY = numberEnv("ALERT_EVALUATION_CONCURRENCY", 8);
/** A run each minute: stop well before the next one starts. */
const DEFAULT_BUDGET_MS = numberEnv("ALERT_EVALUATION_BUDGET_MS", 45_000);

type Outcome = "unchanged" | "written" | "transition" | "notified" | "superseded";

/** One series over the evaluation window: its whole 5-minute buckets, the last one up to the bucket's end. */
async function readWindowTotals(
  query: Omit<SeriesQuery, "start" | "end">,
  window: EvaluationWindow,
  nowMs: number,
): Promise<{ totals: SeriesTotals; itemsRead: number }> {
  const step = 5 * 60_000;
  const end = new Date(Math.ceil(window.end.getTime() / step) * step);
  const totals = await readSeriesWindow({ ...query, start: window.start, end }, nowMs);
  return { totals, itemsRead: totals.itemsRead };
}

async function readTotals(monitor: StoredMonitor, window: EvaluationWindow, nowMs: number) {
  const series = monitorSeries(monitor.metric, monitor.filters);
  const base = { orgId: monitor.orgId, environment: monitor.environment, agent: series.agent };
  const [totals, label] = await Promise.all([
    readWindowTotals({ ...base, facet: series.facet }, window, nowMs),
    series.labelFacet === undefined
      ? undefined
      : readWindowTotals({ ...base, facet: series.labelFacet }, window, nowMs),
  ]);
  return {
    totals: totals.totals,
    label: label?.totals,
    itemsRead: totals.itemsRead + (label?.itemsRead ?? 0),
  };
}

/** The notification of a history entry, as sent when it was written (and again, the same, if it was not handed over). */
function entryNotification(monitor: StoredMonitor, entry: HistoryEntry) {
  return monitorNotification(monitor, {
    notificationId: entry.notificationId,
    type: entry.kind === "renotify" ? "monitor.renotify" : "monitor.state_changed",
    orgId: monitor.orgId,
    environment: monitor.environment,
    state: entry.to,
    previousState: entry.from,
    figure: entry.figure,
    samples: entry.samples,
    threshold: entry.threshold,
    windowStart: entry.windowStart,
    windowEnd: entry.windowEnd,
    occurredAt: entry.at,
  });
}

/** Hands over the notification an earlier evaluation wrote but did not hand over (it stopped in between). */
async function handOverPending(monitor: StoredMonitor): Promise<void> {
  const at = monitor.state.pendingHandOver;
  if (at === undefined) return;
  const keys = { orgId: monitor.orgId, environment: monitor.environment, monitorId: monitor.id };
  const entry = await readHistoryEntry(monitor.id, at);
  if (entry !== undefined) {
    logger.warn("handing over a monitor notification an earlier evaluation left", {
      monitorId: monitor.id,
      notificationId: entry.notificationId,
    });
    await dispatchAlertNotification(entryNotification(monitor, entry), monitor.destinationIds);
  }
  await markHandedOver(keys, at);
}

/** Evaluates one monitor at `now`: reads, judges, writes what changed, then notifies. */
export async function evaluateMonitor(
  monitor: StoredMonitor,
  now: Date,
): Promise<{ outcome: Outcome; itemsRead: number }> {
  await handOverPending(monitor);
  const window = evaluationWindow(now, monitor);
  const at = evaluationMinute(now);
  const { totals, label, itemsRead } = await readTotals(monitor, window, now.getTime());
  const reading = monitorReading(monitor.metric, monitor.filters, totals, label);
  const evaluation = evaluateMonitorState({ definition: monitor, previous: monitor.state, reading, window, at });
  if (!evaluation.write) return { outcome: "unchanged", itemsRead };
  const { transition } = evaluation;
  const notificationId = evaluationNotificationId(monitor.id, at);
  const entry: HistoryEntry | undefined =
    transition === undefined
      ? undefined
      : {
          id: at,
          at,
          from: transition.from,
          to: transition.to,
          kind: transition.kind,
          figure: reading.figure,
          samples: reading.samples,
          threshold: transition.threshold,
          windowStart: window.start.toISOString(),
          windowEnd: window.end.toISOString(),
          notificationId,
        };
  const written = await writeEvaluation(
    {
      orgId: monitor.orgId,
      environment: monitor.environment,
      monitorId: monitor.id,
      stateVersion: monitor.stateVersion,
    },
    evaluation.state,
    entry,
  );
  if (!written) return { outcome: "superseded", itemsRead };
  if (transition === undefined || entry === undefined) return { outcome: "written", itemsRead };
  if (!transition.notify) return { outcome: "transition", itemsRead };
  // Written with the state as pending; handed over, then marked so (an evaluator stopped in between leaves it to
  // the next evaluation, handOverPending).
  await dispatchAlertNotification(entryNotification(monitor, entry), monitor.destinationIds);
  await markHandedOver({ orgId: monitor.orgId, environment: monitor.environment, monitorId: monitor.id }, at);
  return { outcome: "notified", itemsRead };
}

function emptyReport(): EvaluationReport {
  return {
    monitors: 0,
    evaluated: 0,
    written: 0,
    transitions: 0,
    notified: 0,
    superseded: 0,
    failed: 0,
    unreached: 0,
    itemsRead: 0,
  };
}

function record(report: EvaluationReport, outcome: Outcome, itemsRead: number): void {
  report.evaluated++;
  report.itemsRead += itemsRead;
  if (outcome === "superseded") report.superseded++;
  if (outcome === "written" || outcome === "transition" || outcome === "notified") report.written++;
  if (outcome === "transition" || outcome === "notified") report.transitions++;
  if (outcome === "notified") report.notified++;
}

/** Evaluates every enabled monitor at `now` (a few at a time, within the time budget). */
export async function evaluateMonitors(now: Date, options: EvaluationOptions = {}): Promise<EvaluationReport> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  const report = emptyReport();
  let stoppedAt: string | undefined;
  for await (const page of monitorPages(options.orgId === undefined ? {} : { orgId: options.orgId })) {
    report.monitors += page.length;
    const due = page.filter((monitor) => monitor.enabled);
    if (stoppedAt !== undefined) {
      report.unreached += due.length;
      continue;
    }
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        if (Date.now() >= deadline) {
          stoppedAt ??= due[next]?.id;
          report.unreached += due.length - next;
          next = due.length;
          return;
        }
        const monitor = due[next++] as StoredMonitor;
        try {
          const { outcome, itemsRead } = await evaluateMonitor(monitor, now);
          record(report, outcome, itemsRead);
        } catch (error) {
          report.failed++;
          logError("monitor evaluation failed", error, { monitorId: monitor.id, orgId: monitor.orgId });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  }
  if (stoppedAt !== undefined) {
    logger.warn("monitor evaluation stopped at its time budget", {
      unreached: report.unreached,
      firstUnreached: stoppedAt,
      evaluated: report.evaluated,
    });
  }
  return report;
}
