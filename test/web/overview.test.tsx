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

/** A line of GET /api/sdk/models as the server answers it. */
function modelLine(model: string | null, calls: number, estimatedCost: number, unpricedCalls: number) {
  const tokens = { promptTokens: calls * 900, completionTokens: calls * 100, totalTokens: calls * 1000 };
  return {
    model,
    calls,
    estimatedCost,
    ...tokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    unpricedCalls,
  };
}

function modelsReport(from: string, to: string, models: ReturnType<typeof modelLine>[]) {
  const totals = modelLine(null, 0, 0, 0);
  for (const line of models) {
    totals.calls += line.calls;
    totals.estimatedCost += line.estimatedCost;
    totals.promptTokens += line.promptTokens;
    totals.completionTokens += line.completionTokens;
    totals.totalTokens += line.totalTokens;
    totals.unpricedCalls += line.unpricedCalls;
  }
  const { model: _none, ...tally } = totals;
  return { from, to, models, totals: tally, agentsWithoutStats: 0 };
}

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

  test("shows cost by model, and the calls no price covered on a line of their own that leads to the prices page", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json(overview(request.query.get("from") ?? "", request.query.get("to") ?? "")),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
      "GET /api/sdk/models": (request) =>
        json(
          modelsReport(request.query.get("from") ?? "", request.query.get("to") ?? "", [
            modelLine("gpt-4o", 120, 1.5, 0),
            modelLine("our-llama", 40, 0, 40),
            ...Array.from({ length: 9 }, (_, index) => modelLine(`cheap-${index}`, 1, 0.001, 0)),
            modelLine("(other)", 3, 0.01, 1),
            modelLine(null, 7, 0, 7),
          ]),
        ),
    });
    renderApp("/?days=7");
    const table = await screen.findByRole("table", {
      name: "Model calls of all agents per model, the costliest first",
    });
    const agents = requests.find((request) => request.path === "/api/sdk/agents");
    const models = requests.find((request) => request.path === "/api/sdk/models");
    expect(models?.query.get("from")).toBe(agents?.query.get("from"));
    expect(models?.query.get("to")).toBe(agents?.query.get("to"));
    const rows = within(table)
      .getAllByRole("row")
      .slice(1)
      .map((row) =>
        // Intl's compact notation: "120K" in browsers, "120k" in some ICU builds.
        [row.querySelector("th"), ...within(row).getAllByRole("cell")].map((cell) =>
          cell?.textContent?.replace(/(\d)K$/, "$1k"),
        ),
      );
    expect(rows).toEqual([
      ["gpt-4o", "120", "120k", "$1.50"],
      ["our-llama", "40", "40k", "$0.00 + 40 unpriced"],
      ...Array.from({ length: 6 }, (_, index) => [`cheap-${index}`, "1", "1k", "$0.0010"]),
      ["3 more models (the cheapest models of the period, summed)", "3", "3k", "$0.0030"],
      ["Other models (a session's calls of models past its first four)", "3", "3k", "$0.0100 + 1 unpriced"],
      ["No model named (calls that reported usage but no model name)", "7", "7k", "$0.00 + 7 unpriced"],
      ["Calls without a price Set a price", "48", "", "unknown"],
      ["All model calls", "179", "179k", "$1.52"],
    ]);
    await user.click(within(table).getByRole("link", { name: "Set a price" }));
    expect(screen.getByRole("status", { name: "Current location" }).textContent).toBe("/settings/prices");
  });

  test("cost by model says when every call is priced, and when the period has no model call", async () => {
    let report = modelsReport("", "", [modelLine("gpt-4o", 2, 0.02, 0)]);
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": (request) =>
        json(overview(request.query.get("from") ?? "", request.query.get("to") ?? "")),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
      "GET /api/sdk/models": () => json(report),
    });
    const { unmount } = renderApp("/");
    const table = await screen.findByRole("table", { name: /^Model calls of all agents/ });
    expect(within(table).getByRole("row", { name: /^Calls without a price/ }).textContent).toContain("none");
    unmount();
    report = modelsReport("", "", []);
    renderApp("/");
    expect(await screen.findByText("No model calls in this period.")).toBeTruthy();
  });
});
