/**
 * A monitor's state machine: from (definition, stored state, the window's reading, the evaluation minute) to the
 * next state, whether anything stored changes, and the history entry and notification it makes. Pure; the
 * evaluator (alerts/monitor-evaluation.ts) reads the window and writes what this decides.
 *
 * - Fewer samples than `minSessions` (or no figure at all) is no data: `noData` says ok, keep the state, or alert.
 * - Otherwise the figure is compared with the thresholds, strictly (`above`: figure > threshold; `below`:
 *   figure < threshold): past the alert threshold is alert, else past the warning threshold is warning, else ok.
 * - A change of status is a history entry and a notification — except a recovery to ok, notified only with
 *   `notifyOnRecovery`.
 * - Staying in alert renotifies every `renotifyMinutes` (0: never) since the last notification.
 * - Nothing is written when neither the status, the figure, the samples nor the window changed (the window moves
 *   every 5 minutes, so a steady monitor costs a write per 5 minutes at most).
 */
import type { AlertNotificationType, MonitorStatus } from "./alert-notification.js";
import type { HistoryKind, MonitorDefinition, MonitorState } from "./monitor.js";
import type { MonitorReading } from "./monitor-figure.js";

/** The state as stored: what the routes show, and when the last notification went out (for renotifying). */
export interface StoredMonitorState extends MonitorState {
  readonly lastNotifiedAt: string | null;
  /**
   * The minute of a history entry whose notification is written but not yet handed to the delivery: set in the
   * change's transaction, removed once handed over. An evaluator that stopped in between leaves it, and the next
   * evaluation hands that notification over (the same id) before judging anew.
   */
  readonly pendingHandOver?: string;
}

/** A state change or renotification: its history entry's fields and whether a notification goes out. */
export interface MonitorTransition {
  readonly kind: HistoryKind;
  readonly type: Extract<AlertNotificationType, "monitor.state_changed" | "monitor.renotify">;
  readonly from: MonitorStatus;
  readonly to: MonitorStatus;
  readonly threshold: number | null;
  readonly notify: boolean;
}

export interface MonitorEvaluation {
  readonly state: StoredMonitorState;
  /** Whether the stored state changes (false: nothing to write). */
  readonly write: boolean;
  readonly transition: MonitorTransition | undefined;
}

export interface EvaluationInput {
  readonly definition: MonitorDefinition;
  readonly previous: StoredMonitorState;
  readonly reading: MonitorReading;
  readonly window: { readonly start: Date; readonly end: Date };
  /** The evaluation's minute (ISO): the time of the state, the history entry and the notification. */
  readonly at: string;
}

/** Whether the window had too little to judge by. */
export function isNoData(definition: MonitorDefinition, reading: MonitorReading): boolean {
  return reading.figure === null || reading.samples < definition.minSessions;
}

/** The status a figure puts a monitor in. */
export function statusOfFigure(definition: MonitorDefinition, figure: number): MonitorStatus {
  const past = (threshold: number) => (definition.comparison === "above" ? figure > threshold : figure < threshold);
  if (past(definition.alertThreshold)) return "alert";
  if (definition.warningThreshold !== undefined && past(definition.warningThreshold)) return "warning";
  return "ok";
}

function nextStatus(definition: MonitorDefinition, previous: MonitorStatus, reading: MonitorReading): MonitorStatus {
  if (reading.figure === null || isNoData(definition, reading)) {
    if (definition.noData === "keep") return previous;
    return definition.noData;
  }
  return statusOfFigure(definition, reading.figure);
}

/** The threshold a status stands for (null for ok and for a status from no data). */
function thresholdOf(definition: MonitorDefinition, status: MonitorStatus, noData: boolean): number | null {
  if (noData) return null;
  if (status === "alert") return definition.alertThreshold;
  if (status === "warning") return definition.warningThreshold ?? null;
  return null;
}

function isRenotifyDue(definition: MonitorDefinition, previous: StoredMonitorState, at: string): boolean {
  if (definition.renotifyMinutes === 0 || previous.status !== "alert") return false;
  const last = previous.lastNotifiedAt ?? previous.since;
  if (last === null) return false;
  return Date.parse(at) - Date.parse(last) >= definition.renotifyMinutes * 60_000;
}

export function evaluateMonitorState(input: EvaluationInput): MonitorEvaluation {
  const { definition, previous, reading, window, at } = input;
  const noData = isNoData(definition, reading);
  const status = nextStatus(definition, previous.status, reading);
  const changed = status !== previous.status;
  const renotify = !changed && status === "alert" && isRenotifyDue(definition, previous, at);
  const transition: MonitorTransition | undefined = changed
    ? {
        kind: "change",
        type: "monitor.state_changed",
        from: previous.status,
        to: status,
        threshold: thresholdOf(definition, status, noData),
        notify: status !== "ok" || definition.notifyOnRecovery,
      }
    : renotify
      ? {
          kind: "renotify",
          type: "monitor.renotify",
          from: status,
          to: status,
          threshold: thresholdOf(definition, status, noData),
          notify: true,
        }
      : undefined;
  const windowStart = window.start.toISOString();
  const windowEnd = window.end.toISOString();
  const state: StoredMonitorState = {
    status,
    since: changed ? at : (previous.since ?? at),
    figure: reading.figure,
    samples: reading.samples,
    evaluatedAt: at,
    windowStart,
    windowEnd,
    lastNotifiedAt: transition?.notify === true ? at : previous.lastNotifiedAt,
    ...(transition?.notify === true ? { pendingHandOver: at } : {}),
  };
  // The figure alone changing (the bucket in progress filling) writes nothing until the window moves to its next
  // 5 minutes: a monitor costs at most a write per 5 minutes besides its changes, and its shown figure is at most
  // that old (evaluationWindow).
  const write =
    transition !== undefined ||
    previous.evaluatedAt === null ||
    fiveMinuteStep(previous.windowEnd) !== fiveMinuteStep(windowEnd);
  return { state: write ? state : previous, write, transition };
}

/** Which 5 minutes an instant is in (null for none): a state is rewritten when its window's end moves to the next. */
function fiveMinuteStep(instant: string | null): number | null {
  return instant === null ? null : Math.floor((Date.parse(instant) - 1) / (5 * 60_000));
}

/** Metrics that count or sum over the window: a window holding less time can only lower them. */
const ACCUMULATING_METRICS: ReadonlySet<string> = new Set([
  "failed_sessions",
  "error_events",
  "sessions_started",
  "cost",
  "tokens",
]);

/** The window a monitor's figure covers: the whole 5-minute buckets from `start`, up to `end`. */
export interface EvaluationWindow {
  readonly start: Date;
  readonly end: Date;
}

/**
 * The window a monitor is evaluated on at `now`: at least `windowMinutes` ending with the minute in progress (all
 * that is counted so far), from the start of the 5-minute bucket that holds `now − windowMinutes` — so between
 * `windowMinutes` and `windowMinutes + 5` of data, never less. A breach is judged at the next minute's evaluation
 * (within 2 minutes of the session that caused it), and a run inside the last `windowMinutes` is always counted
 * whole (a weighted first bucket, tried first, dropped runs that were inside the window and made a monitor flap
 * between its state and no data as its minimum of sessions was crossed by fractions).
 *
 * A count or sum watched from below is judged instead on the last whole 5 minutes, `[floor5(now) − window,
 * floor5(now))`: its newest bucket still filling would make it dip and fire falsely.
 */
export function evaluationWindow(
  now: Date,
  definition: Pick<MonitorDefinition, "windowMinutes" | "metric" | "comparison">,
): EvaluationWindow {
  const step = 5 * 60_000;
  const length = definition.windowMinutes * 60_000;
  if (definition.comparison === "below" && ACCUMULATING_METRICS.has(definition.metric)) {
    const end = Math.floor(now.getTime() / step) * step;
    return { start: new Date(end - length), end: new Date(end) };
  }
  const end = (Math.floor(now.getTime() / 60_000) + 1) * 60_000;
  return { start: new Date(Math.floor((end - length) / step) * step), end: new Date(end) };
}

/** The minute of an evaluation (ISO): two evaluations in the same minute are the same evaluation. */
export function evaluationMinute(now: Date): string {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
}
