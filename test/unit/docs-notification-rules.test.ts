/**
 * Issue 21, finding 7: the EventBridge rule examples of the docs matched `agentName` / `eventCost` only, so they
 * fired on every tenant's sessions (one bus carries every organisation and both environments). Each example
 * rule of `docs/notifications.md` must name `orgId` and `environment`, and match only that tenant's
 * notifications: checked here with the subset of EventBridge's pattern matching the examples use.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPOSITORY_ROOT } from "../../local/settings.js";

type Pattern = Record<string, unknown>;

/** The JSON code blocks of `docs/notifications.md`, the page on session notifications. */
function examplePatterns(): Pattern[] {
  const page = readFileSync(join(REPOSITORY_ROOT, "docs", "notifications.md"), "utf8");
  return [...page.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1] ?? "") as Pattern);
}

/** EventBridge's matching of one field: a list of exact values or `{ numeric: [op, n] }` conditions. */
function fieldMatches(rule: unknown, value: unknown): boolean {
  if (Array.isArray(rule)) {
    return rule.some((candidate) => {
      if (typeof candidate !== "object" || candidate === null) return candidate === value;
      const [operator, bound] = (candidate as { numeric: [string, number] }).numeric;
      if (typeof value !== "number") return false;
      return operator === ">"
        ? value > bound
        : operator === ">="
          ? value >= bound
          : operator === "<"
            ? value < bound
            : false;
    });
  }
  if (typeof rule === "object" && rule !== null && typeof value === "object" && value !== null) {
    return Object.entries(rule).every(([name, inner]) => fieldMatches(inner, (value as Record<string, unknown>)[name]));
  }
  return false;
}

function notification(orgId: string, environment: string): Record<string, unknown> {
  return {
    source: "agent-tracking",
    "detail-type": "session.failed",
    detail: { orgId, environment, agentName: "support-bot", status: "failed", eventCost: 12.5 },
  };
}

describe("the notification rules of docs/notifications.md", () => {
  const patterns = examplePatterns();

  it("are there", () => {
    expect(patterns.length).toBeGreaterThanOrEqual(2);
  });

  it("each names the organisation and the environment", () => {
    for (const pattern of patterns) {
      expect(pattern.detail).toMatchObject({ orgId: [expect.any(String)], environment: [expect.any(String)] });
    }
  });

  it("each matches its own tenant's notification and no other organisation's or environment's", () => {
    for (const pattern of patterns) {
      const detail = pattern.detail as { orgId: [string]; environment: [string] };
      const [orgId] = detail.orgId;
      const [environment] = detail.environment;
      const other = environment === "live" ? "test" : "live";
      expect(fieldMatches(pattern, notification(orgId, environment)), JSON.stringify(pattern)).toBe(true);
      expect(fieldMatches(pattern, notification(`${orgId}-other`, environment))).toBe(false);
      expect(fieldMatches(pattern, notification(orgId, other))).toBe(false);
    }
  });
});
