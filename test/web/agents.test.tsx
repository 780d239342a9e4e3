// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { AgentStats } from "../../web/src/api/types";
import { dailySeries } from "../../web/src/lib/stats-period";
import { agentPathSegment } from "../../web/src/pages/agents/AgentsPage";
import { baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

const summary = {
  sessions: 4,
  completed: 3,
  failed: 1,
  successRate: 0.75,
  reportedCost: 0.5,
  eventCost: 0.1,
  events: 20,
  promptTokens: 1000,
  completionTokens: 500,
  totalTokens: 1500,
  durationMs: { p50: 2500, p95: 30000, mean: 6000 },
};

const STATS: AgentStats = {
  agentName: "support-bot",
  from: "2026-11-20",
  to: "2026-11-22",
  totals: summary,
  days: [{ day: "2026-11-21", ...summary }],
  topFailureReasons: [{ reason: "Order not found", count: 1 }],
  topToolsByCalls: [{ toolName: "lookup_order", calls: 12 }],
  topToolsByErrors: [],
};

describe("agents", () => {
  test("the daily series has one point per day of the period (the API sends only days with data)", () => {
    expect(dailySeries(STATS).map((point) => [point.day, point.sessions, point.successRate])).toEqual([
      ["2026-11-20", 0, null],
      ["2026-11-21", 4, 75],
      ["2026-11-22", 0, null],
    ]);
  });

  test("list → one agent's stats; the period is kept in the URL", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [{ agentName: "support-bot", sessionCount: 4 }] }),
      "GET /api/sdk/agents/support-bot/stats": json(STATS),
    });
    renderApp("/agents");
    await user.click(await screen.findByRole("link", { name: "support-bot" }));
    expect(await screen.findByRole("heading", { name: "support-bot", level: 1 })).toBeTruthy();
    expect(await screen.findByText("Order not found")).toBeTruthy();
    expect(screen.getByText("No tool errors in this period.")).toBeTruthy();
    expect(within(screen.getByRole("table", { name: "Top tools by calls" })).getByText("lookup_order")).toBeTruthy();
    expect(screen.getByText("75%")).toBeTruthy();
    expect(screen.getByText("≤ 2.50 s")).toBeTruthy();
    expect(screen.getByText("6.00 s")).toBeTruthy();

    await user.selectOptions(screen.getByLabelText("Period"), "Last 7 days");
    await waitFor(() =>
      expect(screen.getByRole("status", { name: "Current location" }).textContent).toBe("/agents/support-bot?days=7"),
    );
    const last = requests.filter((request) => request.path.endsWith("/stats")).at(-1);
    const from = last?.query.get("from") ?? "";
    const to = last?.query.get("to") ?? "";
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(6);
  });
});

describe("agent links", () => {
  test("a dot in an agent's name is encoded, so CloudFront's routing does not take the page for a file", () => {
    expect(agentPathSegment("gpt-4.1-bot")).toBe("gpt-4%2E1-bot");
    expect(decodeURIComponent(agentPathSegment("a/b.c d"))).toBe("a/b.c d");
  });
});
