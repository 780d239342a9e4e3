// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { AgentStats } from "../../web/src/api/types";
import { dailySeries, dayTick, fittingPeriod, spansYears } from "../../web/src/lib/stats-period";
import { agentPathSegment } from "../../web/src/pages/agents/agent-path";
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
  durationMs: { p50: 2487, p95: 29830, p99: 61200, mean: 6000, precision: "fine" as const },
};

const STATS: AgentStats = {
  agentName: "support-bot",
  from: "2026-11-20",
  to: "2026-11-22",
  totals: summary,
  days: [{ day: "2026-11-21", ...summary }],
  topFailureReasons: [{ reason: "Order not found", count: 1 }],
  scores: [],
  scoresTruncated: false,
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

  test("list → one agent's stats; the period is kept in the URL; percentiles read as numbers", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json({
          items: [{ agentName: "support-bot", sessionCount: 4, totals: summary, lastActiveDay: "2026-11-21" }],
          from: request.query.get("from"),
          to: request.query.get("to"),
          totals: summary,
          days: [],
          topFailureReasons: [],
          topToolsByCalls: [],
          topToolsByErrors: [],
          agentsWithoutStats: 0,
        }),
      "GET /api/sdk/agents/support-bot/stats": json(STATS),
    });
    renderApp("/agents?days=7");
    const row = (await screen.findByRole("rowheader", { name: "support-bot" })).closest("tr");
    if (row === null) throw new Error("no row");
    expect(
      within(row)
        .getAllByRole("cell")
        .map((cell) => cell.textContent),
    ).toEqual([
      "4",
      "75%",
      "1",
      "$0.5000",
      // Intl's compact notation: "1.5K" in browsers, "1.5k" in some ICU builds.
      expect.stringMatching(/^1\.5[kK]$/),
      "21 Nov 2026",
    ]);
    expect(within(row).getByRole("link", { name: "1 failed session of support-bot" }).getAttribute("href")).toMatch(
      /^\/sessions\?agentName=support-bot&status=failed&from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/,
    );
    await user.click(within(row).getByRole("link", { name: "support-bot" }));
    expect(await screen.findByRole("heading", { name: "support-bot", level: 1 })).toBeTruthy();
    expect(await screen.findByText("No tool errors in this period.")).toBeTruthy();
    expect(within(screen.getByRole("table", { name: "Top tools by calls" })).getByText("lookup_order")).toBeTruthy();
    expect(screen.getByText("75%")).toBeTruthy();
    const durations = screen.getByRole("region", { name: "Session duration" });
    expect([...durations.querySelectorAll("div")].map((figure) => figure.textContent)).toEqual([
      "p502.5 s",
      "p9530 s",
      "p991 min 1 s",
      "mean6.0 s",
    ]);
    expect(within(durations).queryByText(/coarse buckets/)).toBeNull();
    // Failure reasons and tools lead to exactly their sessions.
    expect(screen.getByRole("link", { name: "Order not found" }).getAttribute("href")).toBe(
      "/sessions?agentName=support-bot&status=failed&from=2026-11-20&to=2026-11-22&failureReason=Order+not+found",
    );
    expect(screen.getByRole("link", { name: "lookup_order" }).getAttribute("href")).toBe(
      "/sessions?agentName=support-bot&from=2026-11-20&to=2026-11-22&toolName=lookup_order",
    );

    await user.selectOptions(screen.getByLabelText("Period"), "Last 30 days");
    await waitFor(() =>
      expect(screen.getByRole("status", { name: "Current location" }).textContent).toBe("/agents/support-bot?days=30"),
    );
    const last = requests.filter((request) => request.path.endsWith("/stats")).at(-1);
    const from = last?.query.get("from") ?? "";
    const to = last?.query.get("to") ?? "";
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(29);
  });

  test("without a period in the URL, the shortest one that holds the agent's data", async () => {
    // Prepare: the agent's first day was 10 days ago.
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents/support-bot/stats": (request) =>
        json({
          ...STATS,
          from: request.query.get("from"),
          to: request.query.get("to"),
          days: [{ day: tenDaysAgo, ...summary }],
        }),
    });
    renderApp("/agents/support-bot");
    expect(await screen.findByRole("option", { name: "Last 14 days", selected: true })).toBeTruthy();
    const spans = requests
      .filter((request) => request.path.endsWith("/stats"))
      .map(
        (request) =>
          (Date.parse(request.query.get("to") ?? "") - Date.parse(request.query.get("from") ?? "")) / 86_400_000 + 1,
      );
    expect(spans).toEqual([366, 14]);
  });

  test("percentiles answered from coarse buckets (days counted before the fine bins) say so", async () => {
    // Prepare: a period that holds a day counted before the fine duration bins existed.
    const coarse = {
      ...summary,
      durationMs: { p50: 10_000, p95: 30_000, p99: 60_000, mean: 9590, precision: "coarse" as const },
    };
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents/support-bot/stats": json({ ...STATS, totals: coarse, days: [] }),
    });
    // Act
    renderApp("/agents/support-bot?days=7");
    // Assess
    const durations = await screen.findByRole("region", { name: "Session duration" });
    await waitFor(() => expect(within(durations).getByText(/upper bounds of coarse buckets/)).toBeTruthy());
    expect([...durations.querySelectorAll("dl div")].map((figure) => figure.textContent)).toEqual([
      "p5010 s",
      "p9530 s",
      "p991 min 0 s",
      "mean9.6 s",
    ]);
  });

  test("axis labels carry the year when the period spans two", () => {
    expect(dayTick("2026-11-22", false)).toBe("22 Nov");
    expect(dayTick("2027-01-02", true)).toBe("2 Jan 2027");
    expect(spansYears("2026-12-01", "2027-01-02")).toBe(true);
    expect(spansYears("2026-01-01", "2026-12-31")).toBe(false);
    expect(fittingPeriod(undefined)).toBe(30);
    expect(fittingPeriod("2026-11-22", Date.parse("2026-11-22T12:00:00Z"))).toBe(7);
    expect(fittingPeriod("2025-01-01", Date.parse("2026-11-22T12:00:00Z"))).toBe(366);
  });
});

describe("agent links", () => {
  test("a dot in an agent's name is encoded, so CloudFront's routing does not take the page for a file", () => {
    expect(agentPathSegment("gpt-4.1-bot")).toBe("gpt-4%2E1-bot");
    expect(decodeURIComponent(agentPathSegment("a/b.c d"))).toBe("a/b.c d");
  });

  test("an agent's page shows its cost by model over the page's period, unpriced calls on their own line", async () => {
    const line = (model: string | null, calls: number, estimatedCost: number, unpricedCalls: number) => ({
      model,
      calls,
      estimatedCost,
      promptTokens: 10 * calls,
      completionTokens: 5 * calls,
      totalTokens: 15 * calls,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      unpricedCalls,
    });
    const { model: _none, ...totals } = line(null, 14, 0.3, 4);
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents/support-bot/stats": json(STATS),
      "GET /api/sdk/agents/support-bot/models": (request) =>
        json({
          agentName: "support-bot",
          from: request.query.get("from"),
          to: request.query.get("to"),
          models: [line("claude-sonnet-4-5", 10, 0.3, 0), line("ft:our-model", 4, 0, 4)],
          totals,
        }),
    });
    renderApp("/agents/support-bot?days=7");
    const table = await screen.findByRole("table", { name: /^Model calls of support-bot per model/ });
    // The period the figures above are for (the stats answer's).
    const models = requests.find((request) => request.path.endsWith("/models"));
    expect(models?.query.toString()).toBe(`from=${STATS.from}&to=${STATS.to}`);
    expect(within(table).getByRole("row", { name: /^ft:our-model/ }).textContent).toContain("+ 4 unpriced");
    const gap = within(table).getByRole("row", { name: /^Calls without a price/ });
    expect(within(gap).getAllByRole("cell")[0]?.textContent).toBe("4");
    expect(within(gap).getByRole("link", { name: "Set a price" }).getAttribute("href")).toBe("/settings/prices");
  });
});
