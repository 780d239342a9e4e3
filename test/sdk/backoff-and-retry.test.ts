/** Retry timing and retry decisions: pure functions of the SDK. */
import { describe, expect, it } from "vitest";
import { DEFAULT_BACKOFF, parseRetryAfter, retryDelayMs } from "../../sdk/src/backoff.js";
import { newSessionId } from "../../sdk/src/ids.js";
import { isRetryableStatus } from "../../sdk/src/retry-policy.js";
import { isSampled, sessionHashFraction } from "../../sdk/src/sampling.js";

describe("retryDelayMs: full jitter under an exponential ceiling", () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 5_000 };

  it("spans 0 up to base · 2^retry, capped", () => {
    expect(retryDelayMs(0, policy, undefined, () => 0)).toBe(0);
    expect(retryDelayMs(0, policy, undefined, () => 0.999999)).toBe(99);
    expect(retryDelayMs(3, policy, undefined, () => 0.999999)).toBe(799);
    expect(retryDelayMs(10, policy, undefined, () => 0.999999)).toBe(4_999);
    expect(retryDelayMs(1_000, policy, undefined, () => 0.5)).toBe(2_500);
  });

  it("is spread over the whole range (not clustered), so clients that failed together do not retry together", () => {
    const delays = Array.from({ length: 2_000 }, () => retryDelayMs(4, policy, undefined));
    const ceiling = 1_600;
    expect(Math.min(...delays)).toBeLessThan(ceiling * 0.05);
    expect(Math.max(...delays)).toBeGreaterThan(ceiling * 0.95);
    expect(delays.every((delay) => delay >= 0 && delay < ceiling)).toBe(true);
  });

  it("never retries sooner than Retry-After, even above the usual cap", () => {
    expect(retryDelayMs(0, policy, 2_000, () => 0)).toBe(2_000);
    expect(retryDelayMs(0, policy, 60_000, () => 0)).toBe(60_000);
    expect(retryDelayMs(6, policy, 1_000, () => 0.9)).toBe(Math.floor(0.9 * 5_000));
  });

  it("has defaults that ride out about a minute of outage within 10 retries", () => {
    const ceilings = Array.from({ length: 10 }, (_, retry) => retryDelayMs(retry, DEFAULT_BACKOFF, undefined, () => 1));
    const worst = ceilings.reduce((sum, delay) => sum + delay, 0);
    expect(worst).toBeGreaterThan(60_000);
    expect(worst).toBeLessThan(200_000);
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates; ignores what it cannot read", () => {
    expect(parseRetryAfter("3")).toBe(3_000);
    expect(parseRetryAfter(" 0 ")).toBe(0);
    const now = Date.parse("2026-11-23T10:00:00Z");
    expect(parseRetryAfter("Mon, 23 Nov 2026 10:00:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Mon, 23 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter("-1")).toBeUndefined();
  });
});

describe("isRetryableStatus", () => {
  it("retries 5xx, 429, 408, 425 and the Idempotency-Key-in-progress 409; not other 4xx", () => {
    for (const status of [500, 502, 503, 504, 429, 408, 425]) expect(isRetryableStatus(status, {})).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 415, 422]) expect(isRetryableStatus(status, {})).toBe(false);
    const inProgress = {
      error: "Conflict",
      message: "A request with this Idempotency-Key is still being processed; retry it shortly",
    };
    expect(isRetryableStatus(409, inProgress)).toBe(true);
    expect(isRetryableStatus(409, { error: "Conflict", message: "A session with this id already exists" })).toBe(false);
    expect(isRetryableStatus(409, undefined)).toBe(false);
  });
});

describe("sampling", () => {
  it("is deterministic per session id and near the rate over many sessions", () => {
    const ids = Array.from({ length: 4_000 }, () => newSessionId());
    for (const id of ids.slice(0, 50)) expect(isSampled(id, 0.3)).toBe(isSampled(id, 0.3));
    const kept = ids.filter((id) => isSampled(id, 0.3)).length / ids.length;
    expect(kept).toBeGreaterThan(0.25);
    expect(kept).toBeLessThan(0.35);
    expect(ids.every((id) => isSampled(id, 1))).toBe(true);
    expect(ids.some((id) => isSampled(id, 0))).toBe(false);
    // A session kept at a lower rate is kept at every higher rate.
    expect(ids.filter((id) => isSampled(id, 0.1)).every((id) => isSampled(id, 0.5))).toBe(true);
    expect(sessionHashFraction("ses_A")).not.toBe(sessionHashFraction("ses_B"));
  });
});

describe("client session ids", () => {
  it("have the service's shape (ses_ + ULID), sort by time and never repeat", () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => newSessionId(1_700_000_000_000 + i));
    for (const id of ids) expect(id).toMatch(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
