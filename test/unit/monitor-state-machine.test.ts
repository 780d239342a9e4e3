/** A monitor's state machine (domain/monitor-state-machine.ts): every branch of its rules. */
import { describe, expect, it } from "vitest";
import type { MonitorDefinition } from "../../functions/domain/monitor.js";
import {
  evaluateMonitorState,
  evaluationMinute,
  evaluationWindow,
  type StoredMonitorState,
} from "../../functions/domain/monitor-state-machine.js";

const definition: MonitorDefinition = {
  name: "failing",
  enabled: true,
  metric: "failure_rate",
  filters: {},
  windowMinutes: 15,
  comparison: "above",
  warningThreshold: 5,
  alertThreshold: 10,
  minSessions: 10,
  noData: "keep",
  renotifyMinutes: 30,
  notifyOnRecovery: true,
  destinationIds: [],
};

const window = { start: new Date("2026-11-27T10:00:00Z"), end: new Date("2026-11-27T10:15:00Z") };
const at = "2026-11-27T10:17:00.000Z";

function stateOf(changes: Partial<StoredMonitorState> = {}): StoredMonitorState {
  return {
    status: "ok",
    since: "2026-11-27T09:00:00.000Z",
    figure: 1,
    samples: 20,
    evaluatedAt: "2026-11-27T10:16:00.000Z",
    windowStart: window.start.toISOString(),
    windowEnd: window.end.toISOString(),
    lastNotifiedAt: null,
    ...changes,
  };
}

function evaluate(
  reading: { figure: number | null; samples: number },
  previous: StoredMonitorState = stateOf(),
  changes: Partial<MonitorDefinition> = {},
  when = at,
) {
  return evaluateMonitorState({ definition: { ...definition, ...changes }, previous, reading, window, at: when });
}

describe("evaluateMonitorState", () => {
  it("goes to alert past the alert threshold: a change, notified, recorded with its threshold", () => {
    const result = evaluate({ figure: 50, samples: 20 });
    expect(result.transition).toEqual({
      kind: "change",
      type: "monitor.state_changed",
      from: "ok",
      to: "alert",
      threshold: 10,
      notify: true,
    });
    expect(result.write).toBe(true);
    expect(result.state).toEqual({
      status: "alert",
      since: at,
      figure: 50,
      samples: 20,
      evaluatedAt: at,
      windowStart: "2026-11-27T10:00:00.000Z",
      windowEnd: "2026-11-27T10:15:00.000Z",
      lastNotifiedAt: at,
      // Written with the change; the evaluator removes it once the notification is handed over.
      pendingHandOver: at,
    });
  });

  it("goes to warning past the warning threshold only, and compares strictly", () => {
    expect(evaluate({ figure: 7, samples: 20 }).transition).toMatchObject({ to: "warning", threshold: 5 });
    expect(evaluate({ figure: 10, samples: 20 }).state.status).toBe("warning");
    expect(evaluate({ figure: 5, samples: 20 }).state.status).toBe("ok");
    expect(evaluate({ figure: 7, samples: 20 }, stateOf(), { warningThreshold: undefined }).state.status).toBe("ok");
  });

  it("compares below: under the thresholds", () => {
    const below = { comparison: "below" as const, warningThreshold: 20, alertThreshold: 10 };
    expect(evaluate({ figure: 5, samples: 20 }, stateOf(), below).state.status).toBe("alert");
    expect(evaluate({ figure: 15, samples: 20 }, stateOf(), below).state.status).toBe("warning");
    expect(evaluate({ figure: 20, samples: 20 }, stateOf(), below).state.status).toBe("ok");
  });

  it("treats fewer samples than minSessions, or no figure, as no data: ok, keep or alert", () => {
    const alerting = stateOf({ status: "alert", lastNotifiedAt: "2026-11-27T10:10:00.000Z" });
    expect(evaluate({ figure: 100, samples: 9 }, alerting, { noData: "keep" }).transition).toBeUndefined();
    expect(evaluate({ figure: 100, samples: 9 }, alerting, { noData: "keep" }).state.status).toBe("alert");
    const toOk = evaluate({ figure: 100, samples: 9 }, alerting, { noData: "ok" });
    expect(toOk.transition).toMatchObject({ from: "alert", to: "ok", threshold: null, notify: true });
    const toAlert = evaluate({ figure: null, samples: 0 }, stateOf(), { noData: "alert", minSessions: 0 });
    expect(toAlert.transition).toMatchObject({ from: "ok", to: "alert", threshold: null, notify: true });
    expect(toAlert.state.figure).toBeNull();
  });

  it("notifies a recovery to ok only with notifyOnRecovery, and records it either way", () => {
    const alerting = stateOf({ status: "alert" });
    const silent = evaluate({ figure: 1, samples: 20 }, alerting, { notifyOnRecovery: false });
    expect(silent.transition).toMatchObject({ kind: "change", from: "alert", to: "ok", notify: false });
    expect(silent.state.lastNotifiedAt).toBeNull();
    expect(evaluate({ figure: 1, samples: 20 }, alerting).transition).toMatchObject({ to: "ok", notify: true });
    // Down from alert to warning is a change too, and notified whatever notifyOnRecovery says.
    const down = evaluate({ figure: 7, samples: 20 }, alerting, { notifyOnRecovery: false });
    expect(down.transition).toMatchObject({ from: "alert", to: "warning", notify: true });
  });

  it("renotifies while in alert every renotifyMinutes since the last notification, never with 0", () => {
    const alerting = stateOf({ status: "alert", figure: 50, lastNotifiedAt: "2026-11-27T09:47:00.000Z" });
    expect(evaluate({ figure: 50, samples: 20 }, alerting).transition).toEqual({
      kind: "renotify",
      type: "monitor.renotify",
      from: "alert",
      to: "alert",
      threshold: 10,
      notify: true,
    });
    expect(evaluate({ figure: 50, samples: 20 }, alerting).state.lastNotifiedAt).toBe(at);
    expect(evaluate({ figure: 50, samples: 20 }, alerting, {}, "2026-11-27T10:16:00.000Z").transition).toBeUndefined();
    expect(evaluate({ figure: 50, samples: 20 }, alerting, { renotifyMinutes: 0 }).transition).toBeUndefined();
    // Never notified (a recovery kept silent, then back): counted from when it entered alert.
    const unnotified = stateOf({ status: "alert", figure: 50, since: "2026-11-27T10:00:00.000Z" });
    expect(evaluate({ figure: 50, samples: 20 }, unnotified).transition).toBeUndefined();
    expect(evaluate({ figure: 50, samples: 20 }, unnotified, {}, "2026-11-27T10:30:00.000Z").transition?.kind).toBe(
      "renotify",
    );
    expect(evaluate({ figure: 50, samples: 20 }, stateOf({ status: "alert", since: null })).transition).toBeUndefined();
    // A warning is not renotified.
    const warning = stateOf({ status: "warning", figure: 7, lastNotifiedAt: "2026-11-27T08:00:00.000Z" });
    expect(evaluate({ figure: 7, samples: 20 }, warning).transition).toBeUndefined();
  });

  it("writes nothing while the status and window are unchanged, whatever the figure", () => {
    const previous = stateOf();
    const same = evaluate({ figure: 1, samples: 20 }, previous);
    expect(same.write).toBe(false);
    expect(same.state).toBe(previous);
    // The bucket in progress filling changes the figure: written when the window moves on, not before.
    expect(evaluate({ figure: 2, samples: 20 }, previous).write).toBe(false);
    expect(evaluate({ figure: 1, samples: 21 }, previous).write).toBe(false);
    expect(evaluate({ figure: 1, samples: 20 }, stateOf({ windowEnd: "2026-11-27T10:10:00.000Z" })).write).toBe(true);
    // The sliding start moves every minute: only the window's end moving to another 5 minutes writes.
    expect(evaluate({ figure: 1, samples: 20 }, stateOf({ windowStart: "2026-11-27T09:55:00.000Z" })).write).toBe(
      false,
    );
  });

  it("writes the first evaluation of a new monitor, since then", () => {
    const first = evaluate(
      { figure: null, samples: 0 },
      {
        status: "ok",
        since: null,
        figure: null,
        samples: 0,
        evaluatedAt: null,
        windowStart: null,
        windowEnd: null,
        lastNotifiedAt: null,
      },
      { noData: "ok" },
    );
    expect(first.write).toBe(true);
    expect(first.transition).toBeUndefined();
    expect(first.state.since).toBe(at);
  });
});

describe("evaluationWindow and evaluationMinute", () => {
  const above = { windowMinutes: 15, metric: "failure_rate", comparison: "above" } as const;

  it("ends with the minute in progress and starts at the bucket holding its start: never less than the window", () => {
    expect(evaluationWindow(new Date("2026-11-27T10:17:42.123Z"), above)).toEqual({
      start: new Date("2026-11-27T10:00:00Z"),
      end: new Date("2026-11-27T10:18:00Z"),
    });
    // A 5-minute window just after a bucket's turn still holds the run that ended before it.
    expect(evaluationWindow(new Date("2026-11-27T10:25:20Z"), { ...above, windowMinutes: 5 })).toEqual({
      start: new Date("2026-11-27T10:20:00Z"),
      end: new Date("2026-11-27T10:26:00Z"),
    });
    // On a bucket's start: exactly the window.
    expect(evaluationWindow(new Date("2026-11-27T10:14:30Z"), above)).toEqual({
      start: new Date("2026-11-27T10:00:00Z"),
      end: new Date("2026-11-27T10:15:00Z"),
    });
    // Seven days and at most the bucket the window starts in.
    const week = evaluationWindow(new Date("2026-11-27T10:17:00Z"), { ...above, windowMinutes: 10_080 });
    expect(week.end.getTime() - week.start.getTime()).toBeLessThanOrEqual(7 * 86_400_000 + 5 * 60_000);
    // Counts and sums watched from above, and anything else watched from below, slide too.
    expect(evaluationWindow(new Date("2026-11-27T10:17:42Z"), { ...above, metric: "error_events" }).end).toEqual(
      new Date("2026-11-27T10:18:00Z"),
    );
    expect(
      evaluationWindow(new Date("2026-11-27T10:17:42Z"), { ...above, metric: "score_mean", comparison: "below" }).end,
    ).toEqual(new Date("2026-11-27T10:18:00Z"));
  });

  it.each(["failed_sessions", "error_events", "sessions_started", "cost", "tokens"] as const)(
    "judges %s watched from below on the last whole 5 minutes (it would dip while a bucket fills)",
    (metric) => {
      expect(
        evaluationWindow(new Date("2026-11-27T10:17:42Z"), { windowMinutes: 15, metric, comparison: "below" }),
      ).toEqual({
        start: new Date("2026-11-27T10:00:00Z"),
        end: new Date("2026-11-27T10:15:00Z"),
      });
    },
  );

  it("names the minute of an evaluation", () => {
    expect(evaluationMinute(new Date("2026-11-27T10:17:42.123Z"))).toBe("2026-11-27T10:17:00.000Z");
  });
});
