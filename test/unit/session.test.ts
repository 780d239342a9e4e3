import { describe, expect, it } from "vitest";
import { ValidationError } from "../../functions/domain/errors.js";
import {
  completedAtProblem,
  isRepeatOfFinalUpdate,
  nonFiniteNumbers,
  planSessionUpdate,
  type Session,
  type SessionPatch,
} from "../../functions/domain/session.js";

const NOW = "2025-06-01T12:00:00.000Z";
const CREATED = "2025-06-01T11:00:00.000Z";

function session(overrides: Partial<Session> = {}): Session {
  return {
    id: "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV",
    orgId: "org-1",
    environment: "live",
    name: "nightly import",
    agentName: "importer",
    userId: "user-1",
    status: "active",
    eventCount: 0,
    eventCost: 0,
    toolCalls: {},
    toolErrors: {},
    createdAt: CREATED,
    updatedAt: CREATED,
    lastActivityAt: CREATED,
    ...overrides,
  };
}

/** A completed session as stored after `{ status: "completed", … }`. */
function completedSession(overrides: Partial<Session> = {}): Session {
  return session({
    status: "completed",
    success: true,
    estimatedCost: 0.25,
    durationMs: 1200,
    promptTokens: 100,
    completionTokens: 50,
    totalTokens: 150,
    failureReason: "none",
    customMetrics: { latencyMs: 12.5, retries: 2 },
    completedAt: NOW,
    ...overrides,
  });
}

describe("planSessionUpdate", () => {
  it("without a status stamps updatedAt and lastActivityAt only, with no completedAt or success", () => {
    // Prepare
    const patch: SessionPatch = Object.freeze({ estimatedCost: 1.5, promptTokens: 10 });

    // Act
    const changes = planSessionUpdate(patch, NOW);

    // Assess
    expect(changes).toStrictEqual({ estimatedCost: 1.5, promptTokens: 10, updatedAt: NOW, lastActivityAt: NOW });
    expect(changes).not.toHaveProperty("completedAt");
    expect(changes).not.toHaveProperty("success");
  });

  it("without a status keeps an explicit success as sent", () => {
    // Prepare
    const patch: SessionPatch = { success: false };

    // Act
    const changes = planSessionUpdate(patch, NOW);

    // Assess
    expect(changes.success).toBe(false);
    expect(changes).not.toHaveProperty("completedAt");
  });

  it("on completed stamps completedAt and defaults success to true", () => {
    // Prepare
    const patch: SessionPatch = { status: "completed", totalTokens: 42 };

    // Act
    const changes = planSessionUpdate(patch, NOW);

    // Assess
    expect(changes).toStrictEqual({
      status: "completed",
      totalTokens: 42,
      success: true,
      completedAt: NOW,
      updatedAt: NOW,
      lastActivityAt: NOW,
    });
  });

  it("on failed stamps completedAt and defaults success to false", () => {
    // Prepare
    const patch: SessionPatch = { status: "failed", failureReason: "timeout" };

    // Act
    const changes = planSessionUpdate(patch, NOW);

    // Assess
    expect(changes).toStrictEqual({
      status: "failed",
      failureReason: "timeout",
      success: false,
      completedAt: NOW,
      updatedAt: NOW,
      lastActivityAt: NOW,
    });
  });

  it("on completed keeps an explicit success of false", () => {
    // Prepare
    const patch: SessionPatch = { status: "completed", success: false };

    // Act
    const changes = planSessionUpdate(patch, NOW);

    // Assess
    expect(changes.success).toBe(false);
    expect(changes.completedAt).toBe(NOW);
  });

  it("on failed keeps an explicit success as sent", () => {
    // Prepare
    const patch: SessionPatch = { status: "failed", success: true };

    // Act
    const changes = planSessionUpdate(patch, NOW);

    // Assess
    expect(changes.success).toBe(true);
  });

  it("does not change the patch it is given", () => {
    // Prepare
    const patch: SessionPatch = Object.freeze({ status: "completed" as const });

    // Act
    planSessionUpdate(patch, NOW);

    // Assess
    expect(patch).toStrictEqual({ status: "completed" });
  });
});

describe("planSessionUpdate with a client's completedAt", () => {
  it("takes it as completedAt on a final status; updatedAt and lastActivityAt stay now", () => {
    const completedAt = "2025-05-29T11:05:00.000Z";

    const changes = planSessionUpdate({ status: "completed", completedAt }, NOW);

    expect(changes).toStrictEqual({
      status: "completed",
      completedAt,
      success: true,
      updatedAt: NOW,
      lastActivityAt: NOW,
    });
  });

  it("refuses it without a status: a 400 naming completedAt", () => {
    const plan = () => planSessionUpdate({ completedAt: CREATED, durationMs: 5 }, NOW);

    expect(plan).toThrow(ValidationError);
    expect(plan).toThrow("Invalid session update: completedAt");
  });
});

describe("completedAtProblem", () => {
  it("accepts none, the session's createdAt and anything after it; refuses a time before it", () => {
    const stored = session();

    expect([
      completedAtProblem(stored, undefined),
      completedAtProblem(stored, CREATED),
      completedAtProblem(stored, NOW),
      completedAtProblem(stored, "2025-06-01T10:59:59.999Z"),
    ]).toEqual([undefined, undefined, undefined, `Must not be before the session's createdAt (${CREATED})`]);
  });
});

describe("isRepeatOfFinalUpdate", () => {
  it("is true when the sent completedAt is the stored one", () => {
    expect(isRepeatOfFinalUpdate(completedSession(), { status: "completed", completedAt: NOW })).toBe(true);
  });

  it("is true for the same status with every field equal to the stored one", () => {
    // Prepare
    const stored = completedSession();
    const patch: SessionPatch = {
      status: "completed",
      success: true,
      estimatedCost: 0.25,
      durationMs: 1200,
      promptTokens: 100,
      completionTokens: 50,
      totalTokens: 150,
      failureReason: "none",
      customMetrics: { latencyMs: 12.5, retries: 2 },
    };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(true);
  });

  it("is true for the same status with only some of the stored fields", () => {
    // Prepare
    const stored = completedSession();
    const patch: SessionPatch = { status: "completed", durationMs: 1200 };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(true);
  });

  it("is true for the status alone, including the defaulted success of a failed session", () => {
    // Prepare
    const stored = session({ status: "failed", success: false, completedAt: NOW });

    // Act
    const results = [
      isRepeatOfFinalUpdate(stored, { status: "failed" }),
      isRepeatOfFinalUpdate(stored, { status: "failed", success: false }),
    ];

    // Assess
    expect(results).toEqual([true, true]);
  });

  it("is false for a different final status", () => {
    // Prepare
    const stored = completedSession();
    const patch: SessionPatch = { status: "failed" };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(false);
  });

  it.each<readonly [string, SessionPatch]>([
    ["success", { status: "completed", success: false }],
    ["estimatedCost", { status: "completed", estimatedCost: 0.26 }],
    ["durationMs", { status: "completed", durationMs: 1201 }],
    ["promptTokens", { status: "completed", promptTokens: 101 }],
    ["completionTokens", { status: "completed", completionTokens: 0 }],
    ["totalTokens", { status: "completed", totalTokens: 151 }],
    ["failureReason", { status: "completed", failureReason: "None" }],
    ["customMetrics", { status: "completed", customMetrics: { latencyMs: 12.5 } }],
    ["completedAt", { status: "completed", completedAt: "2025-06-01T12:00:00.001Z" }],
  ])("is false when %s differs from the stored value", (_field, patch) => {
    // Prepare
    const stored = completedSession();

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(false);
  });

  it("is false when the patch sends a field the stored session does not have", () => {
    // Prepare
    const stored = session({ status: "completed", success: true, completedAt: NOW });
    const patch: SessionPatch = { status: "completed", estimatedCost: 0 };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(false);
  });

  it("is true when customMetrics are equal with keys in another order", () => {
    // Prepare
    const stored = completedSession({ customMetrics: { a: 1, b: 2, c: 3 } });
    const patch: SessionPatch = { status: "completed", customMetrics: { c: 3, a: 1, b: 2 } };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(true);
  });

  it("is false when one customMetrics value differs", () => {
    // Prepare
    const stored = completedSession({ customMetrics: { a: 1, b: 2, c: 3 } });
    const patch: SessionPatch = { status: "completed", customMetrics: { c: 3, a: 1, b: 2.5 } };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(false);
  });

  it("is false when the stored session is still active", () => {
    // Prepare
    const stored = session({ status: "active" });

    // Act
    const results = [
      isRepeatOfFinalUpdate(stored, { status: "completed" }),
      isRepeatOfFinalUpdate(stored, { status: "failed" }),
    ];

    // Assess
    expect(results).toEqual([false, false]);
  });

  it("is false for a patch without a status, even if its fields match", () => {
    // Prepare
    const stored = completedSession();
    const patch: SessionPatch = { durationMs: 1200 };

    // Act
    const repeat = isRepeatOfFinalUpdate(stored, patch);

    // Assess
    expect(repeat).toBe(false);
  });
});

describe("numbers that are not finite", () => {
  it("are refused where the update values are built, named by field and metric (own metric names only)", () => {
    // 1e400 is valid JSON and parses to Infinity; JSON.parse keeps `__proto__` as an own key.
    const customMetrics: Record<string, number> = JSON.parse('{"__proto__":1e400,"constructor":0}');
    Object.defineProperty(customMetrics, "constructor", { value: Number.NaN });
    const patch: SessionPatch = { status: "completed", durationMs: Number.NEGATIVE_INFINITY, customMetrics };

    expect(nonFiniteNumbers(patch)).toEqual([
      { path: "durationMs", message: "Must be a finite number" },
      { path: "customMetrics.__proto__", message: "Must be a finite number" },
      { path: "customMetrics.constructor", message: "Must be a finite number" },
    ]);
    expect(() => planSessionUpdate(patch, NOW)).toThrow(ValidationError);
    expect(() => planSessionUpdate(patch, NOW)).toThrow(
      "Invalid session update: durationMs, customMetrics.__proto__, customMetrics.constructor",
    );
  });

  it("leave a finite patch alone, whatever its metric names", () => {
    const customMetrics: Record<string, number> = JSON.parse('{"__proto__":1,"toString":2}');

    expect(nonFiniteNumbers({ durationMs: 0, estimatedCost: 1.5, customMetrics })).toEqual([]);
    expect(planSessionUpdate({ customMetrics }, NOW).customMetrics).toBe(customMetrics);
  });
});
