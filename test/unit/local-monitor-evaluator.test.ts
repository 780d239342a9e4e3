/** `npm start`'s evaluation period (local/local-monitor-evaluator.ts): a minute, or ATS_ALERT_EVALUATION_MS. */
import { describe, expect, it } from "vitest";
import { evaluationPeriodMs } from "../../local/local-monitor-evaluator.js";

describe("evaluationPeriodMs", () => {
  it("is a minute unless ATS_ALERT_EVALUATION_MS says otherwise", () => {
    expect(evaluationPeriodMs(undefined)).toBe(60_000);
    expect(evaluationPeriodMs("")).toBe(60_000);
    expect(evaluationPeriodMs("2000")).toBe(2000);
  });

  it("refuses what is no period", () => {
    for (const raw of ["50", "1.5", "soon", "-1000"]) {
      expect(() => evaluationPeriodMs(raw)).toThrow(
        `ATS_ALERT_EVALUATION_MS must be an integer of at least 100 (ms), got "${raw}"`,
      );
    }
  });
});
