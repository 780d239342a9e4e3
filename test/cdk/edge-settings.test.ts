/** The edge-protection deploy settings (lib/constructs/edge-settings.ts), checked at synthesis. */
import { App, Stack } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_EDGE_LIMITS,
  EDGE_LIMIT_CONTEXT_KEYS,
  EDGE_PROTECTION_CONTEXT_KEY,
  edgeProtectionSettings,
} from "../../lib/constructs/edge-settings.js";

function settingsWith(context: Record<string, unknown>) {
  return edgeProtectionSettings(new Stack(new App({ context }), "Stack"));
}

describe("edgeProtection", () => {
  it("is off unless set", () => {
    expect(settingsWith({})).toBeUndefined();
  });

  it.each([false, "false"])("is off when set to %j", (value) => {
    expect(settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: value })).toBeUndefined();
  });

  it.each([true, "true"])("is on, with the default limits, when set to %j", (value) => {
    expect(settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: value })).toEqual({ all: 7200, read: 600, management: 60 });
  });

  it.each(["yes", "1", 1, "TRUE", ""])("refuses %j, naming the setting", (value) => {
    expect(() => settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: value })).toThrow(
      /^Context edgeProtection must be true or false, got /,
    );
  });
});

describe("the per-address limits", () => {
  it("take whole numbers of requests per minute, as numbers or as `-c` passes them, strings", () => {
    const limits = settingsWith({
      [EDGE_PROTECTION_CONTEXT_KEY]: "true",
      [EDGE_LIMIT_CONTEXT_KEYS.all]: "20000",
      [EDGE_LIMIT_CONTEXT_KEYS.read]: 1000,
      [EDGE_LIMIT_CONTEXT_KEYS.management]: "10",
    });

    expect(limits).toEqual({ all: 20000, read: 1000, management: 10 });
  });

  it("default each limit left unset", () => {
    expect(settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: true, [EDGE_LIMIT_CONTEXT_KEYS.management]: 30 })).toEqual({
      ...DEFAULT_EDGE_LIMITS,
      management: 30,
    });
  });

  it.each([9, "9", 0, -5, 2.5, "1e3", "ten", "", true, 2_000_000_001])(
    "refuse %j at synthesis, naming the setting and AWS WAF's range",
    (value) => {
      expect(() =>
        settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: "true", [EDGE_LIMIT_CONTEXT_KEYS.read]: value }),
      ).toThrow(
        /^Context edgeReadsPerIpPerMinute must be a whole number of requests per minute from 10 to 2000000000 \(AWS WAF's range\), got /,
      );
    },
  );

  it.each(Object.values(EDGE_LIMIT_CONTEXT_KEYS))(
    "refuse %s without edgeProtection=true, which would leave nothing to enforce it",
    (key) => {
      expect(() => settingsWith({ [key]: 100 })).toThrow(`Context ${key} only applies with edgeProtection=true`);
      expect(() => settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: "false", [key]: 100 })).toThrow(/only applies/);
    },
  );

  it("keep the read and management defaults within a lower limit on all requests", () => {
    expect(settingsWith({ [EDGE_PROTECTION_CONTEXT_KEY]: "true", [EDGE_LIMIT_CONTEXT_KEYS.all]: "300" })).toEqual({
      all: 300,
      read: 300,
      management: 60,
    });
  });

  it.each(["read", "management"] as const)(
    "refuse a %s limit above the limit on all requests, which counts those requests too",
    (kind) => {
      expect(() =>
        settingsWith({
          [EDGE_PROTECTION_CONTEXT_KEY]: "true",
          [EDGE_LIMIT_CONTEXT_KEYS.all]: 500,
          [EDGE_LIMIT_CONTEXT_KEYS[kind]]: 501,
        }),
      ).toThrow(`Context ${EDGE_LIMIT_CONTEXT_KEYS[kind]} (501) must not exceed edgeRequestsPerIpPerMinute (500)`);
    },
  );
});
