/** The retry schedule of failed deliveries and its test setting. */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_DELAYS_MS,
  delayAfterFailedAttempt,
  parseRetryDelays,
  remainingWait,
  sqsSchedule,
} from "../../functions/alerts/delivery/retry-schedule.js";

describe("the retry schedule", () => {
  it("waits 30 s, 2 min, 10 min, 30 min and 1 h, then gives up after the sixth attempt", () => {
    const waits = [1, 2, 3, 4, 5, 6].map((attempt) => delayAfterFailedAttempt(attempt, DEFAULT_RETRY_DELAYS_MS));
    expect(waits).toEqual([30_000, 120_000, 600_000, 1_800_000, 3_600_000, undefined]);
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((sum, wait) => sum + wait, 0);
    expect(total / 60_000).toBe(102.5);
  });

  it("takes a schedule from its setting and refuses a malformed one", () => {
    expect(parseRetryDelays("20, 20,0")).toEqual([20, 20, 0]);
    expect(delayAfterFailedAttempt(3, parseRetryDelays("1,2"))).toBeUndefined();
    for (const bad of ["", "x", "-1", "1.5", "1,,2", String(43_200_001), "1,1,1,1,1,1,1,1,1,1,1"]) {
      expect(() => parseRetryDelays(bad), bad).toThrow(/ALERT_DELIVERY_RETRY_DELAYS_MS/);
    }
  });
});

describe("waits on SQS", () => {
  const now = 1_800_000_000_000;

  it("delays a message up to 15 minutes, and carries a longer wait as notBefore", () => {
    expect(sqsSchedule(30_000, now)).toEqual({ delaySeconds: 30 });
    expect(sqsSchedule(1, now)).toEqual({ delaySeconds: 1 });
    expect(sqsSchedule(900_000, now)).toEqual({ delaySeconds: 900 });
    expect(sqsSchedule(3_600_000, now)).toEqual({ delaySeconds: 900, notBefore: now + 3_600_000 });
  });

  it("sends a long wait on in steps until it is due", () => {
    let { notBefore } = sqsSchedule(3_600_000, now);
    const hops: number[] = [];
    let clock = now + 900_000;
    for (let wait = remainingWait(notBefore, clock); wait > 0; wait = remainingWait(notBefore, clock)) {
      const next = sqsSchedule(wait, clock);
      hops.push(next.delaySeconds);
      notBefore = next.notBefore ?? clock + next.delaySeconds * 1000;
      clock += next.delaySeconds * 1000;
    }
    expect(hops).toEqual([900, 900, 900]);
    expect(clock).toBe(now + 3_600_000);
    expect(remainingWait(undefined, now)).toBe(0);
    expect(remainingWait(now + 999, now)).toBe(0);
  });
});
