// @vitest-environment jsdom
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import { baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

function summary(fields: Record<string, number | null> = {}) {
  return {
    sessions: 10,
    completed: 7,
    failed: 2,
    successRate: 0.777777778,
    reportedCost: 1.25,
    eventCost: 0.5,
    events: 80,
    promptTokens: 9000,
    completionTokens: 3000,
    totalTokens: 12000,
    durationMs: { p50: 5000, p95: 30000, p99: 30000, mean: 7000, precision: "coarse" as const },
    ...fields,
  };
}

function overview(from: string, to: string) {
  return {
    items: [
      {
        agentName: "support-bot",
        sessionCount: 30,
        totals: summary({ failed: 1, reportedCost: 0.25 }),
        lastActiveDay: to,
      },
      {
        agentName: "code-reviewer",
        sessionCount: 12,
        totals: summary({ failed: 3, reportedCost: 2 }),
        lastActiveDay: to,
      },
      {
        agentName: "quiet",
        sessionCount: 1,
        totals: summary({ sessions: 0, failed: 0, reportedCost: 0, eventCost: 0 }),
      },
    ],
    from,
    to,
    totals: summary({
      sessions: 20,
      completed: 14,
      failed: 4,
      successRate: 0.75,
      reportedCost: 2.25,
      totalTokens: 24000,
    }),
    days: [{ day: to, ...summary({ sessions: 20, failed: 4 }) }],
    topFailureReasons: [],
    topToolsByCalls: [],
    topToolsByErrors: [],
    agentsWithoutStats: 0,
  };
}

const FAILED = {
  id: "ses_9",
  name: "Refund gone wrong",
  agentName: "support-bot",
  userId: "u",
  environment: "live",
  metadata: null,
  status: "failed",
  success: false,
  failureReason: "Card declined",
  estimatedCost: null,
  durationMs: 100,
  promptTokens: null,
  completionTokens: null,
  totalTokens: null,
  customMetrics: null,
  eventCount: 2,
  eventCost: 0,
  toolCalls: {},
  toolErrors: {},
  countsAsOf: null,
  createdAt: "2026-11-22T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:00.000Z",
  lastActivityAt: "2026-11-22T10:00:00.000Z",
  completedAt: "2026-11-22T10:00:00.100Z",
  stale: false,
};

describe("Overview", () => {
  test("is the first page: the period's totals as the API gives them, each linked to its sessions", async () => {
    // Prepare
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json(overview(request.query.get("from") ?? "", request.query.get("to") ?? "")),
      "GET /api/sdk/sessions": json({ items: [FAILED], nextCursor: null }),
    });

    // Act
    renderApp("/");

    // Assess: one request for the period, its figures in the tiles
    expect(await screen.findByRole("heading", { name: "Overview", level: 1 })).toBeTruthy();
    const totals = await screen.findByLabelText("Totals of the period");
    const figure = (label: string) => within(totals).getByRole("link", { name: new RegExp(`^${label}:`) });
    const agents = requests.find((request) => request.path === "/api/sdk/agents");
    const from = agents?.query.get("from") ?? "";
    const to = agents?.query.get("to") ?? "";
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(29);
    expect(figure("Sessions").textContent).toBe("20");
    expect(figure("Success rate").textContent).toBe("75%");
    expect(figure("Failed").textContent).toBe("4");
    expect(figure("Cost").textContent).toBe("$2.25");
    expect(figure("Sessions").getAttribute("href")).toBe(`/sessions?from=${from}&to=${to}`);
    expect(figure("Failed").getAttribute("href")).toBe(`/sessions?status=failed&from=${from}&to=${to}`);
  });

  test("ranks agents by failures and by cost, each figure a link to that agent's sessions; lists the latest failures", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json(overview(request.query.get("from") ?? "", request.query.get("to") ?? "")),
      "GET /api/sdk/sessions": json({ items: [FAILED], nextCursor: null }),
    });
    renderApp("/?days=7");
    const byFailures = await screen.findByRole("table", { name: "Agents by failures" });
    expect(
      within(byFailures)
        .getAllByRole("rowheader")
        .map((row) => row.textContent),
    ).toEqual(["code-reviewer", "support-bot"]);
    const link = within(byFailures).getByRole("link", { name: "3 failed sessions of code-reviewer" });
    expect(link.getAttribute("href")).toMatch(/^\/sessions\?agentName=code-reviewer&status=failed&from=.*&to=.*$/);
    const byCost = screen.getByRole("table", { name: "Agents by cost" });
    expect(
      within(byCost)
        .getAllByRole("rowheader")
        .map((row) => row.textContent),
    ).toEqual(["code-reviewer", "support-bot"]);
    const latest = await screen.findByRole("table", { name: "Latest failed sessions" });
    expect(within(latest).getByRole("link", { name: "Refund gone wrong" }).getAttribute("href")).toBe(
      "/sessions/ses_9",
    );
    expect(within(latest).getByText("Card declined")).toBeTruthy();
    expect((screen.getByLabelText("Period") as HTMLSelectElement).value).toBe("7");
  });

  test("the per-day figures link each day to its sessions; the charts say what they show", async () => {
    const user = userEvent.setup();
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json(overview(request.query.get("from") ?? "", request.query.get("to") ?? "")),
      "GET /api/sdk/sessions": json({ items: [FAILED], nextCursor: null }),
    });
    renderApp("/?days=7");
    const perDay = await screen.findByRole("table", { name: "Figures per day, newest first" });
    const rows = within(perDay).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(7);
    const today = new Date().toISOString().slice(0, 10);
    const [newest] = rows;
    if (newest === undefined) throw new Error("no rows");
    expect(
      within(newest)
        .getAllByRole("cell")
        .map((cell) => cell.textContent),
    ).toEqual(["20", "4", "77.8%", "$1.25", "12,000"]);
    expect(screen.getByText(/^, .* to .*: highest 20 on /).closest("figcaption")?.textContent).toMatch(
      /^Sessions per day, /,
    );
    await user.click(within(newest).getByRole("link"));
    expect(screen.getByRole("status", { name: "Current location" }).textContent).toBe(
      `/sessions?from=${today}&to=${today}`,
    );
  });

  test("a day whose success rate is 0 % is drawn (an alarm sliver), unlike a day with no ended session", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json({
          ...overview(request.query.get("from") ?? "", request.query.get("to") ?? ""),
          days: [
            { day: yesterday, ...summary({ sessions: 2, completed: 0, failed: 2, successRate: 0 }) },
            { day: today, ...summary({ sessions: 1, completed: 0, failed: 0, successRate: null }) },
          ],
        }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
    });
    renderApp("/?days=7");
    const caption = await screen.findByText("Success rate per day");
    const days = [...(caption.closest("figure")?.querySelectorAll("li") ?? [])];
    const drawn = (li: Element | undefined) =>
      li?.querySelector(".daybars__zero") !== null ? "0 %" : li.querySelector(".daybars__fill")?.getAttribute("style");
    expect(drawn(days.at(-2))).toBe("0 %");
    expect(drawn(days.at(-1))).toBe("height: 0%;");
  });

  test("an environment without agents says how to record the first session", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ ...overview("2026-11-01", "2026-11-30"), items: [] }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
    });
    renderApp("/?env=test");
    expect(await screen.findByText("No sessions in test yet.")).toBeTruthy();
  });
});
